// The tabs of an app: its overview (charts first) and its live logs.
export function AppNav({ projectId, appId, current }: { projectId: string; appId: string; current: 'overview' | 'logs' }) {
  const base = `/console/projects/${projectId}/apps/${appId}`;
  return (
    <nav class="tabs" aria-label={`App ${appId}`}>
      <a href={base} aria-current={current === 'overview' ? 'page' : undefined}>
        Overview
      </a>
      <a href={`${base}/logs`} aria-current={current === 'logs' ? 'page' : undefined}>
        Logs
      </a>
    </nav>
  );
}
