// `npm run bench -- skill-retrieval`: which learnt skill the runtime offers a todo (graph/learning.ts skillsForTodo,
// the function the executor calls at every step) on the newest sealed set of packages/agent/src/skills/retrieval-corpus
// (sealed-<date>.json: pools of skill descriptions per app, as distillation writes them — the todo titles with values
// as {name} — and todos in many languages labelled with the one skill that does their work, or none; written from
// those definitions alone, before the rule, by an author who did not read it).
// Figures: top1 = the labelled skill is offered first (of the cases that have one); none_ok = nothing is offered to a
// todo no skill does (of those cases); offered_wrong = a case whose first offer is another skill.
// Last line: sealed=<set> cases=<n> top1=<0..1> none_ok=<0..1> offered_wrong=<n>.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { skillsForTodo, type OfferedSkill } from "@phoneloop/agent";

const dir = fileURLToPath(new URL("../packages/agent/src/skills/retrieval-corpus/", import.meta.url));
const set = readdirSync(dir).filter((f) => /^sealed-[0-9a-z-]+\.json$/.test(f)).sort().at(-1);
if (!set) throw new Error(`no sealed set in ${dir}`);
const data = JSON.parse(readFileSync(`${dir}${set}`, "utf8")) as { pools: Record<string, string[]>; cases: { pool: string; todo: string; expect: number | null }[] };

const params = (d: string) => [...d.matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((m) => m[1]!);
const skill = (pool: string, description: string, i: number): OfferedSkill => ({
  id: `${pool}-${i}`,
  name: description.toLocaleLowerCase().replace(/[^\p{L}\p{N}{}]+/gu, " ").trim(),
  app: pool,
  body: { format: 1, app: pool, description, params: params(description), pre: { app: pool, required: [] }, steps: [], post: { app: pool, required: [] } },
});

let hit = 0, withSkill = 0, noneOk = 0, without = 0, wrong = 0;
for (const c of data.cases) {
  const pool = data.pools[c.pool]!.map((d, i) => skill(c.pool, d, i));
  const offered = skillsForTodo(pool, { title: c.todo, goal: c.todo });
  if (c.expect === null) {
    without++;
    if (!offered.length) noneOk++;
    else console.log(`offered to a todo no skill does: "${c.todo}" -> "${offered[0]!.body.description}"`);
    continue;
  }
  withSkill++;
  if (offered[0]?.id === `${c.pool}-${c.expect}`) hit++;
  else {
    if (offered.length) wrong++;
    console.log(`missed: "${c.todo}" -> ${offered.length ? `"${offered[0]!.body.description}"` : "nothing"} (labelled "${data.pools[c.pool]![c.expect]}")`);
  }
}
const f = (n: number) => n.toFixed(3);
console.log(`sealed=${set.replace(/\.json$/, "")} cases=${data.cases.length} top1=${f(hit / withSkill)} none_ok=${f(noneOk / without)} offered_wrong=${wrong}`);
