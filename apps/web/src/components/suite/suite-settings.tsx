// Two suite runs' settings side by side — per role the model, endpoint, adapter and sampling, the prompts'
// fingerprint, trials and perturbations — with every setting they differ in flagged, so a comparison between runs
// that did not run under the same settings says so before anyone reads its figures.
import { settingDifferences, SUITE_SETTING_ROLES, type SuiteRoleSettings } from "@phoneloop/state/domain";
import type { SuiteRunDetail } from "./suite-tasks.ts";
import styles from "./suite.module.css";

const ROLE_FIELDS: { key: keyof SuiteRoleSettings; label: string }[] = [
  { key: "model", label: "model" },
  { key: "endpoint", label: "endpoint" },
  { key: "adapter", label: "adapter" },
  { key: "adapterVersion", label: "adapter version" },
  { key: "temperature", label: "temperature" },
  { key: "topP", label: "top_p" },
  { key: "seed", label: "sampling seed" },
  { key: "maxOutputTokens", label: "output budget (tokens)" },
  { key: "structuredOutput", label: "structured output" },
  { key: "imageDetail", label: "image detail" },
];

const shown = (v: unknown) => (v === null || v === undefined ? "endpoint's default" : String(v));

export function SuiteSettingsCompare({ a, b }: { a: SuiteRunDetail; b: SuiteRunDetail }) {
  const differences = settingDifferences(a, b);
  const differs = new Set(differences.map((d) => d.setting));
  const rows: { id: string; label: string; a: string; b: string }[] = [
    { id: "trials", label: "trials per task and seed", a: String(a.trials), b: String(b.trials) },
    { id: "perturbations", label: "perturbations", a: a.perturbations.join(", ") || "none", b: b.perturbations.join(", ") || "none" },
    { id: "prompts", label: "prompts' fingerprint", a: a.settings?.prompts ?? "not recorded", b: b.settings?.prompts ?? "not recorded" },
    ...SUITE_SETTING_ROLES.flatMap((role) =>
      ROLE_FIELDS.map((f) => ({
        id: `${role}.${f.key}`,
        label: `${role}: ${f.label}`,
        a: a.settings ? shown(a.settings.roles[role][f.key]) : "not recorded",
        b: b.settings ? shown(b.settings.roles[role][f.key]) : "not recorded",
      })),
    ),
  ];
  return (
    <section aria-labelledby="settings-heading" data-testid="suite-settings">
      <h2 id="settings-heading">Settings</h2>
      {differences.length === 0 ? (
        <p className={styles.hint} data-testid="settings-same">
          Both runs ran under the same settings: their figures compare like for like.
        </p>
      ) : (
        <p className={styles.settingsWarning} role="note" data-testid="settings-differ">
          These runs differ in {differences.length} setting{differences.length === 1 ? "" : "s"} ({differences.map((d) => d.setting).join(", ")}): a difference in
          their figures may come from the settings, not the agent.
        </p>
      )}
      <table className={styles.table} aria-label="Settings of the two suite runs">
        <thead>
          <tr>
            <th scope="col">Setting</th>
            <th scope="col">A</th>
            <th scope="col">B</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const different = differs.has(r.id) || (differs.has("settings") && r.id !== "trials" && r.id !== "perturbations");
            return (
              <tr key={r.id} data-differs={different ? "true" : undefined} className={different ? styles.settingDiffers : undefined}>
                <th scope="row">
                  {r.label}
                  {different ? <span className={styles.differsTag}> differs</span> : null}
                </th>
                <td>
                  <code>{r.a}</code>
                </td>
                <td>
                  <code>{r.b}</code>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
