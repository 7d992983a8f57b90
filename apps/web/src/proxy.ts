// Every page response gets a Content-Security-Policy with a fresh nonce; Next reads it from the request header and
// puts it on its own scripts.
import { NextResponse, type NextRequest } from "next/server";
import { readEnv } from "./env.ts";
import { contentSecurityPolicy } from "./security-headers.ts";

export function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy({ nonce, apiUrl: readEnv().NEXT_PUBLIC_API_URL, dev: process.env.NODE_ENV !== "production" });
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: [{ source: "/((?!_next/static|_next/image|icon.svg|favicon.ico).*)" }],
};
