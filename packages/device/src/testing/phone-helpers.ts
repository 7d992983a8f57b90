// Test helpers over a Device and the virtual phone: find nodes by id/text, dismiss the social app's popups.
import type { Device, UiNode } from "../device.ts";
import { centerOf, flattenUiTree } from "../ui-tree.ts";

export function byId(root: UiNode, id: string): UiNode | undefined {
  return flattenUiTree(root).find((n) => n.resourceId === id || n.resourceId.endsWith(`:id/${id}`));
}

export function byText(root: UiNode, text: string): UiNode | undefined {
  return flattenUiTree(root).find((n) => n.text === text || n.contentDesc === text);
}

const DISMISS = ["update_later", "login_wall_not_now", "follow_not_now"];

/** Taps "Later"/"Not now" on any popup the social app shows; returns how many it closed. */
export async function dismissPopups(device: Device): Promise<number> {
  let closed = 0;
  for (let i = 0; i < 3; i++) {
    const tree = await device.uiTree();
    const button = DISMISS.map((id) => byId(tree, id)).find(Boolean);
    if (!button) return closed;
    await device.tap(centerOf(button.bounds));
    closed++;
  }
  return closed;
}

export async function tapId(device: Device, id: string): Promise<void> {
  const node = byId(await device.uiTree(), id);
  if (!node) throw new Error(`no node with id ${id} on screen`);
  await device.tap(centerOf(node.bounds));
}
