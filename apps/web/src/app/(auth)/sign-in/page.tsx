import { AUTH_PATH } from "@phoneloop/api/contract";
import { AccountForm } from "../../../components/account/account-form.tsx";
import styles from "../../../components/account/account.module.css";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  // Only a path on this site, never another origin.
  const target = next?.startsWith("/") && !next.startsWith("//") ? next : "/";
  return (
    <section className={styles.card}>
      <h1>Sign in</h1>
      <p className={styles.lead}>New here? Ask an admin of your team for an invite link.</p>
      <AccountForm
        path={`${AUTH_PATH}/sign-in/email`}
        fields={[
          { name: "email", label: "E-mail", type: "email", autoComplete: "username" },
          { name: "password", label: "Password", type: "password", autoComplete: "current-password" },
        ]}
        submit="Sign in"
        next={target}
        messages={{ 401: "That e-mail and password do not match an account. Check both and try again.", 429: "Too many attempts from this computer. Wait a minute, then try again." }}
      />
    </section>
  );
}
