"use client";
// The signed-in shell's navigation: on a wide screen the links and the account sit in the header's row; on a
// narrow one they fold behind a Menu button (a disclosure: a real button with aria-expanded controlling the panel).
// Opening moves the focus to the first link; Escape, a followed link or a tap outside closes it, Escape giving the
// focus back to the button. A disclosure rather than Radix's dropdown menu: these are page links in a landmark, read
// and tabbed through as a list of links, not menu items with arrow keys.
import { Menu, X } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState, type ReactNode } from "react";
import styles from "./site-menu.module.css";

const ITEMS = [
  { href: "/", label: "Attention" },
  { href: "/board", label: "Board" },
  { href: "/goals/new", label: "New goal" },
  { href: "/devices", label: "Devices" },
  { href: "/runs", label: "Runs" },
  { href: "/suites", label: "Suites" },
  { href: "/learning", label: "Learning" },
  { href: "/team", label: "Team" },
  { href: "/settings/models", label: "Models" },
  { href: "/settings/notifications", label: "Notifications" },
] as const;

const PANEL_ID = "site-menu";

/** `account`: who is signed in and sign-out, shown after the links (in the panel on a narrow screen). */
export function SiteMenu({ account }: { account: ReactNode }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const shell = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);

  // A followed link closes the menu.
  useEffect(() => setOpen(false), [pathname]);

  useEffect(() => {
    if (!open) return;
    panel.current?.querySelector<HTMLElement>("a, button")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (e: PointerEvent) => {
      if (!shell.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const current = (href: string) => (href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`));
  return (
    <div className={styles.shell} ref={shell}>
      <button
        ref={button}
        type="button"
        className={styles.toggle}
        aria-expanded={open}
        aria-controls={PANEL_ID}
        onClick={() => setOpen((o) => !o)}
      >
        {open ? <X size={18} aria-hidden /> : <Menu size={18} aria-hidden />}
        <span>Menu</span>
      </button>
      <div id={PANEL_ID} ref={panel} className={styles.panel} data-open={open}>
        <nav className={styles.nav} aria-label="Main">
          {ITEMS.map((item) => (
            <Link key={item.href} href={item.href} aria-current={current(item.href) ? "page" : undefined} onClick={() => setOpen(false)}>
              {item.label}
            </Link>
          ))}
        </nav>
        {account}
      </div>
    </div>
  );
}
