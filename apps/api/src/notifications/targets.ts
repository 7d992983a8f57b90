// Where the API may send a notification over HTTP (a webhook endpoint, a push service): an http(s) URL whose host
// resolves to public addresses only — never loopback, a private network, link-local (cloud metadata), CGNAT or
// multicast — unless NOTIFY_ALLOW_PRIVATE_TARGETS=true (tests, the benchmark, an install whose receivers sit on its
// own network). The check runs at connect time on the address actually dialled (the request's own lookup), so a
// name that resolved publicly when the endpoint was saved cannot be rebound to 127.0.0.1 later.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** Whether an address is on the public internet (ipaddr.js' "unicast" range; an IPv4-mapped IPv6 by its IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === "unicast";
}

/** What is wrong with a notification URL as written (null: fine); the address is checked again on every connect. */
export function targetUrlProblem(raw: string, allowPrivate: boolean): string | null {
  if (!URL.canParse(raw)) return "The URL is not a valid http(s) URL, e.g. https://hooks.slack.com/services/…";
  const url = new URL(raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") return "The URL must start with https:// (or http://).";
  if (url.username || url.password) return "Put no user name or password in the URL; the endpoint's signature authenticates the sender.";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && (host === "localhost" || host.endsWith(".localhost") || (ipaddr.isValid(host) && !isPublicAddress(host)))) {
    return `The URL's host ${host} is a loopback or private address, which the API does not send to; set NOTIFY_ALLOW_PRIVATE_TARGETS=true on the API to allow receivers on its own network.`;
  }
  return null;
}

/** A lookup for http(s).request that refuses non-public addresses (unless allowed). */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as LookupAddress[];
      const allowed = allowPrivate ? list : list.filter((a) => isPublicAddress(a.address));
      if (!allowed.length) {
        const e = Object.assign(new Error(`${hostname} resolves to a loopback or private address, which the API does not send to (NOTIFY_ALLOW_PRIVATE_TARGETS=true allows it).`), { code: "PRIVATE_TARGET" });
        return callback(e, "", 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}
