// A status word (a run's, a suite run's, an attempt's) shown as a coloured pill: the one look for a status everywhere.
import styles from "./ui.module.css";

export function StatusPill({ status }: { status: string }) {
  return (
    <span className={styles.status} data-status={status}>
      {status}
    </span>
  );
}
