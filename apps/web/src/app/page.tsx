import { AttentionView } from "../components/attention/attention-view.tsx";

export default function HomePage() {
  return <AttentionView />;
}
