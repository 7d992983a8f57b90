"use client";
// The models page: which models the planner, executor and summarizer call (through the API's model proxy, so keys
// stay on the server) and at which endpoint — the shared one, or a role's own — the demo model while none is
// configured, and for an admin the shared endpoint, key and prices, a model per role, each role's own endpoint, key
// and prices (or none: the shared endpoint), with "Test connection". Per role a preset (packages/agent's list, served by
// modelSettings.presets) names the model family and the adapter its model speaks; picking one fills the model name
// and default prices, which stay editable. Everyone in the workspace reads it; only an admin changes it.
import type { RouterInputs, RouterOutputs } from "@phoneloop/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import ui from "../ui/ui.module.css";
import { GroundingCheck } from "./grounding-check.tsx";
import styles from "./models.module.css";

const ROLES = ["planner", "executor", "summarizer"] as const;
type Role = (typeof ROLES)[number];

const ROLE_NOTES: Record<Role, string> = {
  planner: "plans the todos and decides after each one (a text model is enough)",
  executor: "reads the screen and picks one action (needs vision)",
  summarizer: "writes the run's report (a text model is enough)",
};

export function ModelsView() {
  const trpc = useTRPC();
  const session = useSession();
  const { apiUrl } = useApi();
  const status = useQuery(trpc.modelSettings.status.queryOptions({}));
  const settings = useQuery(trpc.modelSettings.get.queryOptions({}));
  const admin = session.status === "signed-in" && session.may("admin");

  if (status.isPending || settings.isPending) return <p className={styles.lead}>Loading the model settings…</p>;
  const problem = status.error ?? settings.error;
  if (problem) {
    return (
      <p role="alert" className={styles.error}>
        {describeProblem(problem, apiUrl).message}
      </p>
    );
  }
  const s = status.data!;
  return (
    <div className={styles.page}>
      <header>
        <h1>Models</h1>
        <p className={styles.lead}>Runs call their models through the PhoneLoop API, which holds the endpoint and its key: no key ever reaches a browser tab.</p>
      </header>
      {s.mode === "demo" ? (
        <section className={`${styles.card} ${styles.demo}`} aria-labelledby="demo-heading">
          <h2 id="demo-heading">
            Runs use the <span className={styles.demoLabel}>{s.label}</span>
          </h2>
          <p className={styles.lead}>
            No model endpoint is configured, so every run in this workspace is answered by the reference policy: a program that reads the phone&apos;s screen and solves the demo phone&apos;s built-in tasks. It is not AI and
            cannot do other goals. {admin ? "Save an OpenAI-compatible endpoint below to run real models." : "An admin can configure a real model endpoint here."}
          </p>
        </section>
      ) : null}
      <RoleTable models={s.models} adapters={s.adapters} demo={s.mode === "demo"} current={settings.data ?? null} />
      {admin ? <ModelSettingsForm current={settings.data ?? null} /> : settings.data ? <ReadOnlySettings current={settings.data} /> : null}
      {admin ? <GroundingCheck /> : null}
    </div>
  );
}

/** Prices in US dollars per million tokens, which is the same number as micro-dollars per token. */
const prices = (input: number, output: number) => `$${input} in, $${output} out per million tokens`;

type Adapters = Partial<Record<Role, { id: string; version: string }>>;

function RoleTable({ models, adapters, demo, current }: { models: Partial<Record<Role, string>>; adapters: Adapters; demo: boolean; current: SettingsView | null }) {
  return (
    <section className={styles.card} aria-labelledby="roles-heading">
      <h2 id="roles-heading">Model per role</h2>
      <table className={styles.table}>
        <thead>
          <tr>
            <th scope="col">Role</th>
            <th scope="col">Model</th>
            <th scope="col">Adapter</th>
            <th scope="col">Endpoint</th>
            <th scope="col">Key</th>
            <th scope="col">Price</th>
            <th scope="col">What it does</th>
          </tr>
        </thead>
        <tbody>
          {ROLES.map((r) => {
            const own = current?.roles[r];
            return (
              <tr key={r}>
                <th scope="row">{r}</th>
                <td>{demo ? "Demo model (reference policy, not AI)" : (models[r] ?? "not set: the model a runner asks for")}</td>
                <td>{demo ? "none" : adapters[r] ? `${adapters[r].id} ${adapters[r].version}` : "phoneloop (the product's JSON)"}</td>
                <td>{demo || !current ? "none" : own?.baseUrl ? <span className={styles.url}>{own.baseUrl}</span> : "the shared endpoint"}</td>
                <td>{demo || !current ? "none" : own?.hasApiKey ? "its own, set" : own?.baseUrl ? "none" : current.hasApiKey ? "the shared key" : "none"}</td>
                <td>
                  {demo || !current
                    ? "free"
                    : prices(own?.microUsdPerInputToken ?? current.microUsdPerInputToken, own?.microUsdPerOutputToken ?? current.microUsdPerOutputToken)}
                </td>
                <td>{ROLE_NOTES[r]}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

interface RoleEndpointView {
  baseUrl: string | null;
  hasApiKey: boolean;
  microUsdPerInputToken: number | null;
  microUsdPerOutputToken: number | null;
}

/** What the API takes for a role's own endpoint (the key: omitted keeps it, null removes it). */
type RoleEndpointInput = NonNullable<NonNullable<RouterInputs["modelSettings"]["set"]["roles"]>[Role]>;

interface SettingsView {
  roles: Partial<Record<Role, RoleEndpointView>>;
  /** The preset each role's adapter and model came from (null: none saved yet). */
  presets: Partial<Record<Role, string | null>>;
  baseUrl: string;
  hasApiKey: boolean;
  models: Partial<Record<Role, string>>;
  microUsdPerInputToken: number;
  microUsdPerOutputToken: number;
  timeoutMs: number;
  updatedAt: Date | string;
}

function ReadOnlySettings({ current }: { current: SettingsView }) {
  return (
    <section className={styles.card} aria-labelledby="endpoint-heading">
      <h2 id="endpoint-heading">Shared endpoint</h2>
      <dl>
        <dt>OpenAI-compatible base URL</dt>
        <dd>{current.baseUrl}</dd>
        <dt>API key</dt>
        <dd>{current.hasApiKey ? "set (kept on the server)" : "none"}</dd>
        <dt>Price</dt>
        <dd>
          ${current.microUsdPerInputToken} per million input tokens, ${current.microUsdPerOutputToken} per million output tokens
        </dd>
      </dl>
      <p className={styles.lead}>A role with an endpoint of its own (in the table above) calls that instead. Only an admin changes the model settings.</p>
    </section>
  );
}

/** A price field: US dollars per million tokens is the same number as micro-dollars per token. */
const price = (v: FormDataEntryValue | null): number => {
  const n = Number(String(v ?? "").trim() || "0");
  if (!Number.isFinite(n) || n < 0) throw new Error("Prices are amounts in US dollars per million tokens, 0 or more (e.g. 0.15).");
  return n;
};

function ModelSettingsForm({ current }: { current: SettingsView | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { apiUrl } = useApi();
  const [formError, setFormError] = useState<string | null>(null);
  // Each save shows the form afresh from what was saved: typed keys are cleared (never kept in the page), boxes unticked.
  const [saves, setSaves] = useState(0);
  const save = useMutation(
    trpc.modelSettings.set.mutationOptions({
      onSuccess: async () => {
        toast.success("Model settings saved");
        await Promise.all([queryClient.invalidateQueries(trpc.modelSettings.get.pathFilter()), queryClient.invalidateQueries(trpc.modelSettings.status.pathFilter())]);
        setSaves((n) => n + 1);
      },
    }),
  );
  const test = useMutation(trpc.modelSettings.test.mutationOptions());
  const presets = useQuery(trpc.modelSettings.presets.queryOptions({}));
  const [chosen, setChosen] = useState<Partial<Record<Role, string>>>({});
  // A preset picked: its model name fills the role's model, its prices the role's own price fields (all editable).
  const [fills, setFills] = useState<Partial<Record<Role, { input: number; output: number; seq: number }>>>({});
  const presetOfRole = (r: Role) => presets.data?.find((p) => p.id === (chosen[r] ?? current?.presets[r] ?? "phoneloop-json")) ?? null;
  const pick = (r: Role, id: string, form: HTMLFormElement | null) => {
    const p = presets.data?.find((x) => x.id === id);
    if (!p) return;
    setChosen((c) => ({ ...c, [r]: id }));
    const model = form?.elements.namedItem(r);
    if (p.model && model instanceof HTMLInputElement) model.value = p.model;
    if (p.prices) setFills((f) => ({ ...f, [r]: { ...p.prices!, seq: (f[r]?.seq ?? 0) + 1 } }));
  };

  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setFormError(null);
    const f = new FormData(e.currentTarget);
    const text = (name: string) => String(f.get(name) ?? "").trim();
    try {
      const models = Object.fromEntries(ROLES.flatMap((r) => (text(r) ? [[r, text(r)]] : [])));
      // A role's own endpoint: what is left empty comes from the shared endpoint (its key stays when left empty);
      // a role switched back to the shared endpoint is cleared.
      const roles: Partial<Record<Role, RoleEndpointInput | null>> = {};
      for (const r of ROLES) {
        if (f.get(`${r}-own`) !== "on") {
          if (current?.roles[r]) roles[r] = null;
          continue;
        }
        roles[r] = {
          ...(text(`${r}-url`) ? { baseUrl: text(`${r}-url`) } : {}),
          ...(text(`${r}-key`) ? { apiKey: text(`${r}-key`) } : f.get(`${r}-key-remove`) === "on" ? { apiKey: null } : {}),
          ...(text(`${r}-input`) ? { microUsdPerInputToken: price(f.get(`${r}-input`)) } : {}),
          ...(text(`${r}-output`) ? { microUsdPerOutputToken: price(f.get(`${r}-output`)) } : {}),
        };
      }
      // Each role's adapter from its preset (the picker's choice, else the one saved).
      const adapters = Object.fromEntries(ROLES.flatMap((r) => { const p = presetOfRole(r); return p ? [[r, p.adapter]] : []; }));
      save.mutate({
        roles,
        adapters,
        baseUrl: text("baseUrl"),
        ...(text("apiKey") ? { apiKey: text("apiKey") } : f.get("apiKey-remove") === "on" ? { apiKey: null } : {}),
        models,
        microUsdPerInputToken: price(f.get("inputPrice")),
        microUsdPerOutputToken: price(f.get("outputPrice")),
        timeoutMs: current?.timeoutMs ?? 120_000,
      });
    } catch (err) {
      setFormError((err as Error).message);
    }
  };

  const error = formError ?? (save.error ? describeProblem(save.error, apiUrl).message : null);
  return (
    <section className={styles.card} aria-labelledby="endpoint-form-heading">
      <h2 id="endpoint-form-heading">Endpoints</h2>
      <p className={styles.lead}>
        Any OpenAI-compatible server: a provider, a gateway, or a model you host. Every role calls the shared endpoint unless it has one of its own. Test the saved settings with one tiny request per role, each at
        its endpoint.
      </p>
      <form className={styles.form} onSubmit={onSubmit} key={`${saves}:${current ? String(current.updatedAt) : "new"}`} aria-describedby={error ? "models-error" : undefined}>
        <label className={styles.wide}>
          Base URL
          <input name="baseUrl" type="url" required defaultValue={current?.baseUrl ?? ""} placeholder="https://api.example.com/v1" />
        </label>
        <label className={styles.wide}>
          API key {current?.hasApiKey ? <span className={styles.hint}>(set and kept on the server; leave empty to keep it)</span> : null}
          <input name="apiKey" type="password" autoComplete="off" placeholder={current?.hasApiKey ? "••••••••" : "sk-…"} />
        </label>
        {current?.hasApiKey ? (
          <label className={`${styles.check} ${styles.wide}`}>
            <input type="checkbox" name="apiKey-remove" />
            Remove the stored key (for an endpoint that takes none)
          </label>
        ) : null}
        {ROLES.map((r) => (
          <div key={r} className={styles.rolePick}>
            <PresetPicker role={r} presets={presets.data ?? []} value={presetOfRole(r)?.id ?? ""} onPick={pick} />
            <label>
              {r[0]!.toUpperCase() + r.slice(1)} model
              <input name={r} defaultValue={current?.models[r] ?? ""} placeholder={r === "executor" ? "a vision model" : "a text model"} />
              <span className={styles.hint}>{ROLE_NOTES[r]}</span>
            </label>
          </div>
        ))}
        <label>
          Input price (USD per million tokens)
          <input name="inputPrice" type="number" min="0" step="any" inputMode="decimal" defaultValue={current?.microUsdPerInputToken ?? 0} />
        </label>
        <label>
          Output price (USD per million tokens)
          <input name="outputPrice" type="number" min="0" step="any" inputMode="decimal" defaultValue={current?.microUsdPerOutputToken ?? 0} />
        </label>
        {ROLES.map((r) => (
          <RoleEndpointFields key={r} role={r} current={current?.roles[r] ?? null} fill={fills[r] ?? null} />
        ))}
        <div className={styles.actions}>
          <button type="submit" className={`${ui.button} ${ui.primary}`} disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save"}
          </button>
          <button type="button" className={ui.button} disabled={test.isPending} onClick={() => test.mutate({})}>
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
        </div>
        {error ? (
          <p id="models-error" className={`${styles.error} ${styles.wide}`} role="alert">
            {error}
          </p>
        ) : null}
      </form>
      <div aria-live="polite">
        {test.error ? (
          <p className={styles.error} role="alert">
            {describeProblem(test.error, apiUrl).message}
          </p>
        ) : null}
        {test.data ? (
          <table className={styles.table} aria-label="Connection test">
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Result</th>
                <th scope="col">Details</th>
                <th scope="col">Endpoint</th>
              </tr>
            </thead>
            <tbody>
              {test.data.roles.map((r) => (
                <tr key={r.role}>
                  <th scope="row">{r.role}</th>
                  <td className={r.ok ? styles.ok : styles.bad}>{r.ok ? "Connected" : "Failed"}</td>
                  <td>{r.message}</td>
                  <td>{test.data.demo ? "none (demo model)" : r.ownEndpoint ? "its own" : "the shared endpoint"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
    </section>
  );
}

const title = (r: Role) => r[0]!.toUpperCase() + r.slice(1);

type Preset = RouterOutputs["modelSettings"]["presets"][number];

/** A role's preset: the presets that suit the role, and the chosen one's adapter, image rule, frame and prices in words. */
function PresetPicker({ role, presets, value, onPick }: { role: Role; presets: Preset[]; value: string; onPick: (r: Role, id: string, form: HTMLFormElement | null) => void }) {
  const offered = presets.filter((p) => p.roles.includes(role));
  const p = offered.find((x) => x.id === value) ?? null;
  const id = `${role}-preset`;
  return (
    <div>
      <label htmlFor={id}>{title(role)} preset</label>
      <select id={id} value={value} onChange={(e) => onPick(role, e.currentTarget.value, e.currentTarget.form)} aria-describedby={`${id}-about`}>
        {offered.map((x) => (
          <option key={x.id} value={x.id}>
            {x.label}
          </option>
        ))}
      </select>
      <p id={`${id}-about`} className={styles.hint}>
        {p
          ? `Adapter ${p.adapter.id} ${p.adapter.version} (${p.family}). Image: ${p.imageRule}. Points: ${p.frame}. Image tokens: ${p.tokenFormula}. ${p.prices ? `Default price: ${prices(p.prices.input, p.prices.output)}.` : "No default price: set your price."}`
          : "Loading the presets…"}
      </p>
    </div>
  );
}

/** One role's own endpoint in the form: off means the role calls the shared endpoint. A preset's prices turn it on and fill its prices. */
function RoleEndpointFields({ role, current, fill }: { role: Role; current: RoleEndpointView | null; fill: { input: number; output: number; seq: number } | null }) {
  const [own, setOwn] = useState(current !== null);
  useEffect(() => {
    if (fill) setOwn(true);
  }, [fill]);
  const name = title(role);
  return (
    <fieldset className={`${styles.wide} ${styles.roleEndpoint}`}>
      <legend>{name} endpoint</legend>
      <label className={styles.check}>
        <input type="checkbox" name={`${role}-own`} checked={own} onChange={(e) => setOwn(e.currentTarget.checked)} />
        The {role} calls an endpoint of its own
      </label>
      {own ? (
        <div className={styles.roleFields}>
          <label className={styles.wide}>
            {name} endpoint URL
            <input name={`${role}-url`} type="url" defaultValue={current?.baseUrl ?? ""} placeholder="empty: the shared endpoint's URL" />
          </label>
          <label className={styles.wide}>
            {name} key {current?.hasApiKey ? <span className={styles.hint}>(set and kept on the server; leave empty to keep it)</span> : <span className={styles.hint}>(with a URL of its own, the shared key is never sent there)</span>}
            <input name={`${role}-key`} type="password" autoComplete="off" placeholder={current?.hasApiKey ? "••••••••" : "sk-…"} />
          </label>
          {current?.hasApiKey ? (
            <label className={`${styles.check} ${styles.wide}`}>
              <input type="checkbox" name={`${role}-key-remove`} />
              Remove the {role}&apos;s stored key
            </label>
          ) : null}
          <label>
            {name} input price (USD per million tokens)
            <input key={`in-${fill?.seq ?? 0}`} name={`${role}-input`} type="number" min="0" step="any" inputMode="decimal" defaultValue={fill?.input ?? current?.microUsdPerInputToken ?? ""} placeholder="empty: the shared price" />
          </label>
          <label>
            {name} output price (USD per million tokens)
            <input key={`out-${fill?.seq ?? 0}`} name={`${role}-output`} type="number" min="0" step="any" inputMode="decimal" defaultValue={fill?.output ?? current?.microUsdPerOutputToken ?? ""} placeholder="empty: the shared price" />
          </label>
        </div>
      ) : (
        <p className={styles.hint}>Uses the shared endpoint, key and prices. Turn this on to give the {role} its own; turn it off and save to clear them.</p>
      )}
    </fieldset>
  );
}
