"use client";
// The one form behind sign-in, setup and invite acceptance: posts JSON to the API with the session cookie, then
// loads the next page afresh, so every query and the event stream start again as the signed-in person.
import { useState, type FormEvent } from "react";
import { useApi } from "../../lib/api.tsx";
import styles from "./account.module.css";

export interface Field {
  name: string;
  label: string;
  type?: "text" | "email" | "password";
  autoComplete?: string;
  defaultValue?: string;
}

export interface AccountFormProps {
  /** Path on the API, e.g. /api/auth/sign-in/email. */
  path: string;
  fields: Field[];
  /** Sent along with the fields (a setup or invite token). */
  extra?: Record<string, string>;
  submit: string;
  /** Where to go once it worked. */
  next?: string;
  /** Words for an answer status (the API's own message is used otherwise). */
  messages?: Partial<Record<number, string>>;
}

export function AccountForm(props: AccountFormProps) {
  const { apiUrl } = useApi();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const form = new FormData(e.currentTarget);
    const body: Record<string, string> = { ...props.extra };
    for (const f of props.fields) body[f.name] = String(form.get(f.name) ?? "");
    try {
      const res = await fetch(`${apiUrl}${props.path}`, {
        method: "POST",
        credentials: "include",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) {
        const answer = (await res.json().catch(() => ({}))) as { error?: { message?: string }; message?: string };
        setError(props.messages?.[res.status] ?? answer.error?.message ?? answer.message ?? `The API answered ${res.status}; try again.`);
        return;
      }
      window.location.assign(props.next ?? "/");
    } catch {
      setError(`The API at ${apiUrl} cannot be reached. Is PhoneLoop running (npm start)?`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className={styles.form} onSubmit={(e) => void onSubmit(e)}>
      {props.fields.map((f) => (
        <label key={f.name}>
          {f.label}
          <input name={f.name} type={f.type ?? "text"} autoComplete={f.autoComplete} defaultValue={f.defaultValue} required />
        </label>
      ))}
      {error ? (
        <p className={styles.error} role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        {props.submit}
      </button>
    </form>
  );
}
