import { AttentionView } from "../components/attention/attention-view.tsx";
import { TryDemo } from "../components/models/try-demo.tsx";

export default function HomePage() {
  return (
    <>
      <TryDemo />
      <AttentionView />
    </>
  );
}
