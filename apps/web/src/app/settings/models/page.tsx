import { ModelsView } from "../../../components/models/models-view.tsx";

export default function ModelsPage() {
  return <ModelsView />;
}
