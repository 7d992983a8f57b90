// App categories: the names the policy reads (money, shopping, messaging…). What an app is comes from evidence in
// app-catalog.ts (a workspace's list, the catalog of known packages, the app's label, its package name's words, the
// screen); appCategory is the package-only form callers used before and keeps working.
import { appCategoryFrom } from "./app-catalog.ts";

export const APP_CATEGORIES = ["money", "shopping", "messaging", "email", "social", "store", "permission", "settings", "keyboard", "dialer", "browser"] as const;
export type AppCategory = (typeof APP_CATEGORIES)[number];

export interface AppCategoryRule {
  /** A package name, or a prefix ending in "*" ("com.mybank.*"). */
  app: string;
  category: AppCategory;
}

/** The category of a package: the workspace's rules first, then the catalog, then its package name's words. */
export function appCategory(pkg: string | undefined, extra: AppCategoryRule[] = []): AppCategory | null {
  if (!pkg) return null;
  return appCategoryFrom({ packageName: pkg }, extra)?.category ?? null;
}

export const isKeyboardPackage = (pkg: string | undefined): boolean => appCategory(pkg) === "keyboard";
