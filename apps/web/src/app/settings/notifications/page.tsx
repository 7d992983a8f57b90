import type { Metadata } from "next";
import { NotificationsView } from "../../../components/notifications/notifications-view.tsx";

export const metadata: Metadata = { title: "Notifications · PhoneLoop" };

export default function NotificationsPage() {
  return <NotificationsView />;
}
