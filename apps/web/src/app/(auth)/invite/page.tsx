import { ACCOUNT_PATH } from "@phoneloop/api/contract";
import { AccountForm } from "../../../components/account/account-form.tsx";
import styles from "../../../components/account/account.module.css";

export default async function InvitePage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <section className={styles.card}>
      <h1>Join your team</h1>
      {token ? (
        <>
          <p className={styles.lead}>Create your account to accept the invite. Already have one? Sign in first, then open the link again.</p>
          <AccountForm
            path={`${ACCOUNT_PATH}/invite`}
            extra={{ token }}
            fields={[
              { name: "name", label: "Your name", autoComplete: "name" },
              { name: "email", label: "E-mail", type: "email", autoComplete: "username" },
              { name: "password", label: "Password (10 characters or more)", type: "password", autoComplete: "new-password" },
            ]}
            submit="Join"
          />
        </>
      ) : (
        <p className={styles.lead}>Open the invite link an admin sent you; it carries a one-time token.</p>
      )}
    </section>
  );
}
