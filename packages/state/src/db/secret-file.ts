// Secrets kept in the data folder: created once with 256 random bits, readable by the owner only (0600).
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";

/** The secret in `path`, made (base64url, no padding: safe in URLs and SQL literals) when the file is missing. */
export function readOrCreateSecret(path: string): string {
  if (existsSync(path)) {
    chmodSync(path, 0o600);
    const value = readFileSync(path, "utf8").trim();
    if (value) return value;
  }
  const value = randomBytes(32).toString("base64url");
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return value;
}
