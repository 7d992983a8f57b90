// The element list the executor sees: one line per element, every field that comes from the app (text,
// description, resource id, class) quoted and neutralised, so no field can forge a line, a fence or an instruction.
import type { ElementRef } from "../graph/observe.ts";
import { quoteUntrusted } from "./fence.ts";

/** `[3] Button "Search" id="search" @[10,40,120,80]` (bounds 0–1000). */
export function formatScreenElements(elements: ElementRef[]): string {
  return elements
    .map((e) => {
      const flags = [e.editable ? "editable" : "", e.password ? "password" : "", e.scrollable ? "scrollable" : "", !e.clickable && !e.editable && !e.scrollable ? "text" : ""].filter(Boolean).join(",");
      const id = e.resourceId ? ` id=${quoteUntrusted(e.resourceId.replace(/^.*:id\//, ""), 80)}` : "";
      return `[${e.index}] ${quoteUntrusted(e.className, 40)}${flags ? `(${flags})` : ""} ${quoteUntrusted(e.text, 200)}${id} @[${e.box.join(",")}]`;
    })
    .join("\n");
}
