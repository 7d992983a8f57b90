// The web app's security headers. The Content-Security-Policy carries a fresh nonce per response (proxy.ts), so
// only Next's own scripts run; the page talks to the API (and a phone's WebSocket on this computer) and nothing else.
export function contentSecurityPolicy(opts: { nonce: string; apiUrl: string; dev: boolean }): string {
  const api = new URL(opts.apiUrl).origin;
  return [
    "default-src 'self'",
    // 'wasm-unsafe-eval': the OCR reader's WebAssembly (Tesseract) may be compiled; it allows no JavaScript eval.
    `script-src 'self' 'nonce-${opts.nonce}' 'strict-dynamic' 'wasm-unsafe-eval'${opts.dev ? " 'unsafe-eval'" : ""}`,
    // React and Radix set style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' blob: data: ${api}`,
    "font-src 'self' data:",
    `connect-src 'self' ${api} ws://127.0.0.1:* ws://localhost:*`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
