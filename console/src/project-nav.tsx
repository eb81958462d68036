// The tabs of a project: its apps, domains, databases, members and audit trail.
export function ProjectNav({ projectId, current }: { projectId: string; current: 'apps' | 'domains' | 'databases' | 'members' | 'audit' }) {
  const tab = (id: typeof current, label: string) => (
    <a href={`/console/projects/${projectId}/${id}`} aria-current={id === current ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <nav class="tabs" aria-label={`Project ${projectId}`}>
      {tab('apps', 'Apps')}
      {tab('domains', 'Domains')}
      {tab('databases', 'Databases')}
      {tab('members', 'Members')}
      {tab('audit', 'Audit')}
    </nav>
  );
}
