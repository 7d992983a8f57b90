"use client";
// "Check grounding": one real screenshot of the demo phone with a known target goes to the executor's model, and its
// tap comes back drawn on the screenshot — the target's box, the tap, and the distance between them in pixels — so
// an admin sees whether the model's taps land where it means before a run taps in the wrong place.
import { useMutation } from "@tanstack/react-query";
import type { RouterOutputs } from "@phoneloop/client";
import { describeProblem, useApi } from "../../lib/api.tsx";
import { useTRPC } from "../../lib/trpc.ts";
import ui from "../ui/ui.module.css";
import styles from "./models.module.css";

type Check = RouterOutputs["modelSettings"]["checkGrounding"];

export function GroundingCheck() {
  const trpc = useTRPC();
  const { apiUrl } = useApi();
  const check = useMutation(trpc.modelSettings.checkGrounding.mutationOptions());
  return (
    <section className={styles.card} aria-labelledby="grounding-heading">
      <h2 id="grounding-heading">Grounding</h2>
      <p className={styles.lead}>
        Shows the executor model a screenshot of the demo phone without its element list and asks it to tap one row: its tap is drawn on the screenshot with the distance from the row&apos;s centre. Save the
        endpoint first.
      </p>
      <div className={styles.actions}>
        <button type="button" className={ui.button} disabled={check.isPending} onClick={() => check.mutate({})}>
          {check.isPending ? "Checking…" : "Check grounding"}
        </button>
      </div>
      <div aria-live="polite">
        {check.error ? (
          <p className={styles.error} role="alert">
            {describeProblem(check.error, apiUrl).message}
          </p>
        ) : null}
        {check.data ? <GroundingResult result={check.data} /> : null}
      </div>
    </section>
  );
}

function GroundingResult({ result }: { result: Check }) {
  const good = result.inside === true;
  return (
    <div className={styles.grounding} data-testid="grounding-result">
      <p className={good ? styles.ok : result.demo ? undefined : styles.bad} data-field="grounding-message">
        {result.message}
      </p>
      {result.screenshot && result.target ? (
        <figure className={styles.groundingFigure}>
          <svg
            viewBox={`0 0 ${result.screenshot.width} ${result.screenshot.height}`}
            role="img"
            aria-label={
              result.tap
                ? `The screenshot with the target row outlined and the model's tap at ${result.tap.x}, ${result.tap.y}, ${result.distancePx} px from its centre`
                : "The screenshot with the target row outlined; the model did not tap"
            }
            className={styles.groundingImage}
          >
            <image href={`data:image/png;base64,${result.screenshot.base64}`} width={result.screenshot.width} height={result.screenshot.height} />
            <rect
              x={result.target.box.left}
              y={result.target.box.top}
              width={result.target.box.right - result.target.box.left}
              height={result.target.box.bottom - result.target.box.top}
              className={styles.groundingTarget}
              data-field="grounding-target"
            />
            {result.tap ? (
              <g data-field="grounding-tap" data-x={result.tap.x} data-y={result.tap.y}>
                <circle cx={result.tap.x} cy={result.tap.y} r={36} className={good ? styles.groundingTapGood : styles.groundingTapBad} />
                <circle cx={result.tap.x} cy={result.tap.y} r={8} className={good ? styles.groundingDotGood : styles.groundingDotBad} />
              </g>
            ) : null}
          </svg>
          <figcaption className={styles.hint}>
            Asked: {result.target.instruction}
            <span data-field="grounding-adapter"> · asked and read as {result.adapter ? `${result.adapter.id} ${result.adapter.version}` : "phoneloop (the product's JSON)"}</span>
            {result.distancePx !== null ? ` · ${result.distancePx} px from the centre` : ""}
            {result.latencyMs !== null ? ` · answered in ${result.latencyMs} ms` : ""}
          </figcaption>
        </figure>
      ) : null}
      {result.reply ? (
        <details>
          <summary>The model&apos;s reply</summary>
          <pre className={styles.reply}>{result.reply}</pre>
        </details>
      ) : null}
    </div>
  );
}
