// The one argument parser of the CLI (node:util parseArgs, strict) and typed access to what it parsed: a missing
// or malformed value is a UsageError whose message says what to pass.
import { parseArgs, type ParseArgsConfig } from "node:util";

export type Options = NonNullable<ParseArgsConfig["options"]>;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export class Args {
  private constructor(
    private readonly values: Record<string, string | boolean | string[] | undefined>,
    readonly positionals: string[],
  ) {}

  /** Parses argv against `options`; unknown flags and missing values are usage errors. */
  static parse(argv: string[], options: Options, opts: { positionals?: boolean } = {}): Args {
    try {
      const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: opts.positionals ?? false, strict: true });
      return new Args(values as Record<string, string | boolean | undefined>, positionals);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }

  string(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === "string" && v.length > 0 ? v : undefined;
  }

  requiredString(name: string, hint = ""): string {
    const v = this.string(name);
    if (!v) throw new UsageError(`Missing --${name}${hint ? ` ${hint}` : ""}.`);
    return v;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  int(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}".`);
    return Number(v);
  }

  /** A duration like 90s, 5m, 1h or plain milliseconds. */
  durationMs(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
    if (!m) throw new UsageError(`--${name} must be a duration like 90s, 5m or 1h, got "${v}".`);
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "ms") as "ms" | "s" | "m" | "h"];
    return Number(m[1]) * unit;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`--${name} must be one of ${allowed.join(", ")}; got "${v}".`);
    return v as T;
  }

  /** A comma-separated list (empty when absent). */
  list(name: string): string[] {
    return (this.string(name) ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  }

  /** A JSON object flag, e.g. --values '{"price":"12.50"}'. */
  jsonObject(name: string): Record<string, unknown> | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new UsageError(`--${name} must be a JSON object, e.g. '{"price":"12.50"}'.`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError(`--${name} must be a JSON object.`);
    return parsed as Record<string, unknown>;
  }
}
