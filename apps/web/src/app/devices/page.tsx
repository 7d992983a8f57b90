import type { Metadata } from "next";
import { DevicesView } from "../../components/device/devices-view.tsx";

export const metadata: Metadata = { title: "Devices · PhoneLoop" };

export default function DevicesPage() {
  return <DevicesView />;
}
