import type { ReactNode } from "react";
import styles from "./empty.module.css";

/** An empty state says what is empty and what to do next. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className={styles.empty}>
      <h2>{title}</h2>
      {children ? <div className={styles.next}>{children}</div> : null}
    </section>
  );
}
