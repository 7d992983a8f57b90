"use client";
// A todo's internal id, at hand without being read on the card: its title attribute shows it on hover or focus,
// a press copies it (for the CLI, an API call or a bug report).
import { Copy } from "lucide-react";
import { toast } from "sonner";
import ui from "../ui/ui.module.css";

export function CopyId({ id, what }: { id: string; what: string }) {
  const copy = () => {
    if (!navigator.clipboard) return void toast.error(`This browser gives the page no clipboard; the id is ${id}`);
    navigator.clipboard.writeText(id).then(
      () => toast.success(`Copied the id ${id}`),
      () => toast.error(`Could not copy; the id is ${id}`),
    );
  };
  return (
    <button type="button" className={ui.iconButton} aria-label={`Copy the id of “${what}”`} title={`${id} (copy)`} onClick={copy}>
      <Copy size={14} aria-hidden />
    </button>
  );
}
