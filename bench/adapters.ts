// `npm run bench -- adapters`: every fixture of every model adapter (packages/agent/src/model/adapters/fixtures)
// through the real port. Per adapter and version: its prompt built on a real demo-phone screenshot (the virtual
// phone's Settings screen, resized by the adapter's image rule, encoded as the runtime sends it) and counted with
// its image-token formula; then each fixture reply parsed against the fixture's screen. The well-formed fixtures
// must give their actions and device pixels (parse_ok, max_px_error: the largest distance on one axis between an
// expected and a parsed point); the malformed must be typed rejections with their code — one that is not fails the
// benchmark (exit 1). p50_prompt_tokens: the median over the adapters of the prompt's counted tokens.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MODEL_ADAPTERS, countRequestTokens, countTextTokens, imageSizeFor } from "@phoneloop/agent";
import { nodeImages } from "@phoneloop/agent/node";
import { checkFixture, type FixtureFile } from "@phoneloop/agent/testing";
import { knownTarget } from "@phoneloop/virtual-phone";

const dir = fileURLToPath(new URL("../packages/agent/src/model/adapters/fixtures/", import.meta.url));
const files: FixtureFile[] = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as FixtureFile);

const target = await knownTarget("settings", "Display");
const images = nodeImages;
const decoded = await images.decode(target.png);
const device = { width: target.width, height: target.height };
const tokens: number[] = [];
for (const adapter of MODEL_ADAPTERS) {
  const d = adapter.descriptor;
  const size = imageSizeFor(d.image, device);
  const image = await images.encode(await images.resize(decoded, size.width, size.height), "image/jpeg", 0.8);
  const messages = adapter.messages({
    goal: "Open the display settings",
    todo: "Open the Display settings",
    app: target.app,
    screen: device,
    image,
    elements: "",
    history: "1. open_app \"Settings\" → the Settings app opened",
  });
  const counted = countRequestTokens(messages, d.tokenFormula);
  // Offered tools go with the request too (a tool-calls adapter's action schema).
  if (adapter.tools) counted.total += countTextTokens(JSON.stringify(adapter.tools));
  tokens.push(counted.total);
  const sent = messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content)).find((p) => p.type === "image");
  if (!sent || sent.width !== size.width || sent.height !== size.height) throw new Error(`${d.id} ${d.version}: the prompt does not carry the screenshot at ${size.width}×${size.height}`);
  console.log(`${d.id} ${d.version}: image ${size.width}×${size.height} (${d.image.kind}), frame ${d.frame.kind}${d.frame.kind === "normalised" ? ` 0–${d.frame.max}` : ""}, prompt ${counted.total} tokens (${counted.image} image, ${d.tokenFormula})`);
}

let wellFormed = 0;
let parsedOk = 0;
let maxPx = 0;
let fixtures = 0;
const failures: string[] = [];
for (const file of files) {
  let ok = 0;
  for (const f of file.fixtures) {
    fixtures++;
    const r = checkFixture(file, f);
    if (f.reject) {
      if (!r.ok) failures.push(`${file.adapter} ${file.version} "${f.name}": ${r.problem}`);
    } else {
      wellFormed++;
      if (r.ok) parsedOk++;
      else failures.push(`${file.adapter} ${file.version} "${f.name}": ${r.problem}`);
      maxPx = Math.max(maxPx, r.pxError);
    }
    if (r.ok) ok++;
  }
  console.log(`${file.adapter} ${file.version}: ${ok}/${file.fixtures.length} fixtures as expected`);
}
for (const f of failures) console.log(`FAILED ${f}`);
const sorted = [...tokens].sort((a, b) => a - b);
const p50 = sorted[Math.floor((sorted.length - 1) / 2)]!;
const malformedFailed = failures.length - (wellFormed - parsedOk);
console.log(`adapters=${MODEL_ADAPTERS.length} fixtures=${fixtures} parse_ok=${(wellFormed ? parsedOk / wellFormed : 0).toFixed(3)} max_px_error=${maxPx} p50_prompt_tokens=${p50}`);
if (malformedFailed > 0) process.exit(1);
