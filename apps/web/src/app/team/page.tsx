import { TeamAdmin } from "../../components/account/team-admin.tsx";

export default function TeamPage() {
  return <TeamAdmin />;
}
