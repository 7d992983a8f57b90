// Writes PNGs of a few screens to /tmp so a person can look at them: npx tsx packages/virtual-phone/scripts/render-smoke.ts
import { writeFileSync } from "node:fs";
import { PhoneEngine } from "../src/engine.ts";
import { ManualClock, tapOn } from "../src/testing.ts";

const clock = new ManualClock();
const phone = new PhoneEngine({ scenario: "social", seed: 1, clock });
const shots: [string, () => void][] = [
  ["social-update-dialog", () => {}],
  ["social-feed", () => tapOn(phone, "Later")],
  ["social-search-keyboard", () => (tapOn(phone, "Search"), phone.typeText("手机智能体"))],
  ["social-results-skeleton", () => phone.key(66)],
  ["social-results", () => clock.advance(700)],
  ["launcher", () => phone.key(3)],
];
for (const [name, step] of shots) {
  step();
  const file = `/tmp/phoneloop-${name}.png`;
  writeFileSync(file, await phone.screenshot());
  console.log(file);
}
