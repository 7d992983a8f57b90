import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { describeFrame, describeImageRule, MODEL_PRESETS, presetDescriptor, presetOf } from "@phoneloop/agent";
import { REFERENCE_POLICY_LABEL, REFERENCE_POLICY_MODEL } from "@phoneloop/reference-policy";
import { MODEL_ROLES, ModelSettingsInput } from "../model-settings.ts";
import { testModelConnection } from "../model-connection.ts";
import { checkGrounding } from "../grounding-check.ts";
import { procedure } from "../trpc.ts";

export const modelSettingsRouter = {
  /** The workspace's model endpoint, models and prices; the key only as "set or not". Members read, admins write. */
  get: procedure(z.object({}).default({})).query(async ({ ctx }) => {
    const view = await ctx.modelSettings.view(ctx.workspaceId);
    // Per role, the preset its adapter and model came from (presetOf: one rule for the page and the profiles).
    return view && { ...view, presets: Object.fromEntries(MODEL_ROLES.map((r) => [r, presetOf(view.adapters[r], view.models[r])?.id ?? null])) as Record<(typeof MODEL_ROLES)[number], string | null> };
  }),
  /**
   * What runs in this workspace call: its endpoint's models, or — with none configured — the demo model (the
   * reference policy, which is no AI), with the label to show wherever a run's model is named.
   */
  status: procedure(z.object({}).default({})).query(async ({ ctx }) => {
    const view = await ctx.modelSettings.view(ctx.workspaceId);
    if (!view) return { mode: "demo" as const, label: REFERENCE_POLICY_LABEL, models: Object.fromEntries(MODEL_ROLES.map((r) => [r, REFERENCE_POLICY_MODEL])) as Record<(typeof MODEL_ROLES)[number], string>, adapters: {} };
    return { mode: "configured" as const, label: null, models: view.models, adapters: view.adapters };
  }),
  /**
   * The model presets (packages/agent model/adapters/presets.ts): per family its model name, adapter and version,
   * default prices (USD per million tokens; null: set your price), the roles it suits, and its adapter's image rule,
   * frame and image-token formula in words.
   */
  presets: procedure(z.object({}).default({})).query(() =>
    MODEL_PRESETS.map((p) => {
      const d = presetDescriptor(p);
      return { id: p.id, label: p.label, model: p.model, adapter: p.adapter, prices: p.prices, roles: [...p.roles], family: d.family, imageRule: describeImageRule(d.image), frame: describeFrame(d.frame), tokenFormula: d.tokenFormula };
    }),
  ),
  /** Leave apiKey out to keep the stored one. */
  set: procedure(ModelSettingsInput).mutation(({ ctx, input }) => ctx.modelSettings.set(ctx.workspaceId, input, ctx.actor)),
  /**
   * "Test connection": one tiny chat completion per role with the saved endpoint, key and model (the demo model
   * when none is saved). Answers per role: ok, the model that answered and the time, or what failed and what to do.
   */
  test: procedure(z.object({}).default({})).mutation(async ({ ctx }) => testModelConnection(await ctx.modelSettings.upstream(ctx.workspaceId))),
  /**
   * "Check grounding": one real screenshot of the demo phone with a known target sent to the executor's endpoint;
   * answers the screenshot, the target, the model's parsed tap in device pixels and its distance from the target.
   */
  checkGrounding: procedure(z.object({}).default({})).mutation(async ({ ctx }) => checkGrounding(await ctx.modelSettings.upstream(ctx.workspaceId))),
} satisfies TRPCRouterRecord;
