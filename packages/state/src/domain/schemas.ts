// Shared pieces of operator input schemas.
import { z } from "zod";
import { ROLES } from "./roles.ts";

export const Id = z.string().trim().min(1).max(200);
export const IdempotencyKey = z.string().min(1).max(300);
export const ShortText = z.string().trim().min(1).max(500);
export const LongText = z.string().max(20_000);
export const JsonObject = z.record(z.string(), z.unknown());
export const Capabilities = z.array(z.string().trim().min(1).max(100)).max(100);
export const TtlMs = z.number().int().min(1).max(24 * 60 * 60 * 1000);
export const RoleSchema = z.enum(ROLES);
