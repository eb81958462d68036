// An app's logs tab: its requests streamed live (app-logs.tsx).
import { useRoute } from 'preact-iso';
import { AppLogs } from '../app-logs.tsx';
import { AppNav } from '../app-nav.tsx';
import { ProjectNav } from '../project-nav.tsx';
import { Frame } from '../ui.tsx';

export function AppLogsPage() {
  const { params } = useRoute();
  const path = { projectId: params.project ?? '', appId: params.app ?? '' };
  return (
    <Frame title={`Logs of ${path.appId}`}>
      <ProjectNav projectId={path.projectId} current="apps" />
      <AppNav projectId={path.projectId} appId={path.appId} current="logs" />
      <AppLogs path={path} />
    </Frame>
  );
}
