"use client";
// Settings → Notifications. For every member who answers gates: "Notify me on this device" (Web Push through the
// service worker /notify-sw.js; the browser subscribes with the API's VAPID public key, and the API keeps the
// subscription for this person). For admins: the workspace's webhook endpoints (URL, format, which notifications),
// the signing secret shown once when one is made, a test send per endpoint, and the delivery log (status, attempts,
// the receiver's last response code). Every notification links to its gate or run, which opens after sign-in.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import ui from "../ui/ui.module.css";
import page from "../ui/settings-page.module.css";
import own from "./notifications.module.css";

const styles = { ...page, ...own };

const KINDS = [
  { kind: "gate_opened", label: "A gate waits for an answer" },
  { kind: "gate_answered", label: "A gate was answered" },
  { kind: "gate_expired", label: "A gate expired or escalated" },
  { kind: "takeover_asked", label: "The agent asks for a takeover" },
  { kind: "run_ended", label: "A run ended" },
] as const;
const FORMATS = [
  { value: "generic", label: "Generic JSON (signed)" },
  { value: "slack", label: "Slack incoming webhook" },
  { value: "teams", label: "Microsoft Teams (Workflows)" },
  { value: "feishu", label: "Feishu / Lark custom bot" },
  { value: "dingtalk", label: "DingTalk custom robot" },
] as const;
const SW_PATH = "/notify-sw.js";

export function NotificationsView() {
  const session = useSession();
  const signedIn = session.status === "signed-in";
  const admin = signedIn && session.may("admin");
  return (
    <div className={styles.page}>
      <header>
        <h1>Notifications</h1>
        <p className={styles.lead}>
          Where a gate reaches people: this device, your team&apos;s chat through webhooks, and e-mail when the server has SMTP. A notification only links to the gate; you answer it on its page after signing in.
        </p>
      </header>
      {signedIn && session.may("answer_gate") ? <ThisDevice /> : <p className={styles.lead}>Approvers and admins can be notified on their devices; ask an admin for the approver role on the Team page.</p>}
      {admin ? <Webhooks /> : <p className={styles.lead}>Only an admin of this workspace adds webhook endpoints and reads their delivery log.</p>}
    </div>
  );
}

function ThisDevice() {
  const trpc = useTRPC();
  const { apiUrl } = useApi();
  const channels = useQuery(trpc.notification.channels.queryOptions({}));
  const [endpoint, setEndpoint] = useState<string | null>(null);
  const [support, setSupport] = useState<"checking" | "yes" | "no">("checking");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const ok = typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
    setSupport(ok ? "yes" : "no");
    if (!ok) return;
    void navigator.serviceWorker.getRegistration(SW_PATH).then(async (reg) => setEndpoint((await reg?.pushManager.getSubscription())?.endpoint ?? null));
  }, []);
  const status = useQuery({ ...trpc.notification.pushStatus.queryOptions({ endpoint: endpoint ?? "" }), enabled: endpoint !== null });
  const subscribe = useMutation(trpc.notification.subscribePush.mutationOptions());
  const unsubscribe = useMutation(trpc.notification.unsubscribePush.mutationOptions());
  const on = endpoint !== null && status.data?.subscribed === true;

  const toggle = async () => {
    setError(null);
    setBusy(true);
    try {
      const reg = await navigator.serviceWorker.register(SW_PATH);
      await navigator.serviceWorker.ready;
      if (on) {
        const sub = await reg.pushManager.getSubscription();
        if (sub) {
          await unsubscribe.mutateAsync({ endpoint: sub.endpoint });
          await sub.unsubscribe();
        }
        setEndpoint(null);
        toast.success("This device will not be notified any more");
        return;
      }
      if ((await Notification.requestPermission()) !== "granted") {
        setError("The browser does not allow notifications for this site. Allow them in the site's settings (the lock icon beside the address), then try again.");
        return;
      }
      const key = channels.data?.vapidPublicKey;
      if (!key) return;
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromBase64Url(key) });
      const json = sub.toJSON();
      await subscribe.mutateAsync({ endpoint: sub.endpoint, p256dh: json.keys?.p256dh ?? "", auth: json.keys?.auth ?? "" });
      setEndpoint(sub.endpoint);
      await status.refetch();
      toast.success("This device will be notified when a gate waits for you");
    } catch (e) {
      setError(e instanceof Error && !("data" in e) ? `The browser could not subscribe: ${e.message}` : describeProblem(e, apiUrl).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className={styles.card} aria-labelledby="device-heading">
      <h2 id="device-heading">This device</h2>
      {channels.isPending || support === "checking" ? (
        <p className={styles.lead}>Checking what this browser and the server support…</p>
      ) : channels.error ? (
        <p role="alert" className={styles.error}>{describeProblem(channels.error, apiUrl).message}</p>
      ) : !channels.data.webPush ? (
        <p className={styles.lead}>Web Push is not set up on this server (VAPID keys). `npm start` makes them; elsewhere set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY on the API.</p>
      ) : support === "no" ? (
        <p className={styles.lead}>This browser cannot receive push notifications here. On an iPhone, add PhoneLoop to the home screen first; elsewhere use a current Chrome, Edge or Firefox.</p>
      ) : (
        <label className={styles.check}>
          <input type="checkbox" checked={on} disabled={busy} onChange={() => void toggle()} />
          Notify me on this device when a gate waits for me
        </label>
      )}
      {error ? <p role="alert" className={styles.error}>{error}</p> : null}
      <p className={styles.lead}>E-mail: {channels.data?.email ? "gates that wait for you are also sent to your account's address." : "not set up on this server (SMTP_HOST)."}</p>
    </section>
  );
}

function fromBase64Url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (s.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function Webhooks() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { apiUrl } = useApi();
  const endpoints = useQuery(trpc.notification.endpoints.queryOptions({}));
  const deliveries = useQuery({ ...trpc.notification.deliveries.queryOptions({ limit: 50 }), refetchInterval: 3_000 });
  const [error, setError] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.notification.endpoints.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.notification.deliveries.queryKey() });
  };
  const create = useMutation({
    ...trpc.notification.createEndpoint.mutationOptions(),
    onSuccess: (made) => {
      setError(null);
      setSecret({ url: made.endpoint.url, secret: made.secret });
      refresh();
    },
    onError: (e) => setError(describeProblem(e, apiUrl).message),
  });
  const remove = useMutation({ ...trpc.notification.deleteEndpoint.mutationOptions(), onSuccess: () => (toast.success("The endpoint is deleted"), refresh()), onError: (e) => setError(describeProblem(e, apiUrl).message) });
  const test = useMutation({ ...trpc.notification.sendTest.mutationOptions(), onSuccess: () => (toast.success("A test notification is on its way; its delivery shows below"), refresh()), onError: (e) => setError(describeProblem(e, apiUrl).message) });

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const kinds = KINDS.map((k) => k.kind).filter((k) => f.get(`kind-${k}`) === "on");
    if (!kinds.length) return setError("Choose at least one kind of notification for the endpoint.");
    create.mutate({ url: String(f.get("url") ?? "").trim(), format: f.get("format") as (typeof FORMATS)[number]["value"], kinds });
  };

  return (
    <>
      <section className={styles.card} aria-labelledby="hooks-heading">
        <h2 id="hooks-heading">Webhook endpoints</h2>
        <p className={styles.lead}>
          Each request is a POST signed with the endpoint&apos;s secret: <code>X-PhoneLoop-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex HMAC-SHA256 of &quot;t.body&quot;&gt;</code>, with <code>X-PhoneLoop-Delivery</code> (the same on a retry) and <code>X-PhoneLoop-Kind</code>. A receiver that does not answer 2xx is tried again, waiting longer each time (8 attempts).
        </p>
        {endpoints.isPending ? (
          <p className={styles.lead}>Loading the endpoints…</p>
        ) : endpoints.error ? (
          <p role="alert" className={styles.error}>{describeProblem(endpoints.error, apiUrl).message}</p>
        ) : endpoints.data.length === 0 ? (
          <p className={styles.lead}>No endpoint yet.</p>
        ) : (
          <ul aria-label="Webhook endpoints" style={{ listStyle: "none", margin: 0, padding: 0 }}>
            {endpoints.data.map((ep) => (
              <li key={ep.id} className={styles.endpoint}>
                <span>
                  <strong>{ep.url}</strong> · {FORMATS.find((f) => f.value === ep.format)?.label ?? ep.format} · {ep.kinds.map((k) => KINDS.find((x) => x.kind === k)?.label ?? k).join(", ")}
                </span>
                <span className={ui.actions}>
                  <button type="button" className={ui.button} onClick={() => test.mutate({ endpointId: ep.id })} disabled={test.isPending}>
                    Send test to {new URL(ep.url).host}
                  </button>
                  <button type="button" className={`${ui.button} ${ui.danger}`} onClick={() => remove.mutate({ endpointId: ep.id })} disabled={remove.isPending}>
                    Delete {new URL(ep.url).host}
                  </button>
                </span>
              </li>
            ))}
          </ul>
        )}
        {secret ? (
          <div className={styles.secret} role="status">
            The signing secret of {secret.url}, shown only now — copy it into the receiver: <code>{secret.secret}</code>
          </div>
        ) : null}
        <form className={styles.form} onSubmit={submit} aria-label="Add a webhook endpoint">
          <label className={ui.field}>
            Endpoint URL
            <input name="url" type="url" required placeholder="https://hooks.slack.com/services/…" />
          </label>
          <label className={ui.field}>
            Format
            <select name="format" defaultValue="generic">
              {FORMATS.map((f) => (
                <option key={f.value} value={f.value}>{f.label}</option>
              ))}
            </select>
          </label>
          <fieldset className={styles.kinds}>
            <legend>Send when</legend>
            {KINDS.map((k) => (
              <label key={k.kind} className={styles.check}>
                <input type="checkbox" name={`kind-${k.kind}`} defaultChecked={k.kind === "gate_opened"} />
                {k.label}
              </label>
            ))}
          </fieldset>
          <div className={ui.actions}>
            <button type="submit" className={`${ui.button} ${ui.primary}`} disabled={create.isPending}>Add the endpoint</button>
          </div>
        </form>
        {error ? <p role="alert" className={styles.error}>{error}</p> : null}
      </section>
      <section className={styles.card} aria-labelledby="log-heading">
        <h2 id="log-heading">Delivery log</h2>
        {deliveries.isPending ? (
          <p className={styles.lead}>Loading the deliveries…</p>
        ) : deliveries.error ? (
          <p role="alert" className={styles.error}>{describeProblem(deliveries.error, apiUrl).message}</p>
        ) : deliveries.data.length === 0 ? (
          <p className={styles.lead}>Nothing sent yet.</p>
        ) : (
          <div className={styles.scroll}>
            <table className={styles.table} aria-label="Last deliveries">
              <thead>
                <tr><th scope="col">When</th><th scope="col">What</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Response</th></tr>
              </thead>
              <tbody>
                {deliveries.data.map((d) => (
                  <tr key={d.id} data-status={d.status}>
                    <td>{new Date(d.createdAt).toLocaleString("en")}</td>
                    <td>{d.title}</td>
                    <td>{d.channel === "webhook" ? (endpoints.data?.find((e) => e.id === d.endpointId)?.url ?? "a deleted endpoint") : d.channel === "push" ? "a device (Web Push)" : d.destination.replace(/^email:/, "")}</td>
                    <td>{d.status === "pending" && d.attempts > 0 ? `retrying at ${new Date(d.nextAttemptAt).toLocaleTimeString("en")}` : d.status}</td>
                    <td>{d.attempts}</td>
                    <td>{d.lastStatusCode ?? "—"}{d.lastError ? ` (${d.lastError})` : ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
