import { ACCOUNT_PATH } from "@phoneloop/api/contract";
import { AccountForm } from "../../../components/account/account-form.tsx";
import styles from "../../../components/account/account.module.css";

export default async function SetupPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <section className={styles.card}>
      <h1>Set up PhoneLoop</h1>
      {token ? (
        <>
          <p className={styles.lead}>Create the first admin account and your team. This link works once.</p>
          <AccountForm
            path={`${ACCOUNT_PATH}/setup`}
            extra={{ token }}
            fields={[
              { name: "name", label: "Your name", autoComplete: "name" },
              { name: "email", label: "E-mail", type: "email", autoComplete: "username" },
              { name: "password", label: "Password (10 characters or more)", type: "password", autoComplete: "new-password" },
              { name: "workspaceName", label: "Team name", defaultValue: "My team" },
            ]}
            submit="Create account"
          />
        </>
      ) : (
        <p className={styles.lead}>Open the setup link that `npm start` printed; it carries a one-time token.</p>
      )}
    </section>
  );
}
