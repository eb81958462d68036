// The console: a client of the platform API like `cw`, served by cw-api under /console/.
import { render } from 'preact';
import { LocationProvider, Route, Router } from 'preact-iso';
import { AppPage } from './pages/app.tsx';
import { AppLogsPage } from './pages/app-logs.tsx';
import { AppSourcePage } from './pages/app-source.tsx';
import { Audit } from './pages/audit.tsx';
import { DatabasePage, Databases } from './pages/databases.tsx';
import { DomainPage, Domains } from './pages/domains.tsx';
import { Members } from './pages/members.tsx';
import { Apps } from './pages/apps.tsx';
import { Projects } from './pages/projects.tsx';
import { SourceBuildPage } from './pages/source-build.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { Tokens } from './pages/tokens.tsx';
import { SessionProvider, useSession } from './session.tsx';
import { Loading } from './ui.tsx';

function Console() {
  const { userId } = useSession();
  if (userId === undefined) return <Loading what="your session" />;
  if (userId === null) return <SignIn />;
  return (
    <Router>
      <Route path="/console/" component={Projects} />
      <Route path="/console/tokens" component={Tokens} />
      <Route path="/console/projects/:project/apps" component={Apps} />
      <Route path="/console/projects/:project/apps/:app" component={AppPage} />
      <Route path="/console/projects/:project/apps/:app/logs" component={AppLogsPage} />
      <Route path="/console/projects/:project/apps/:app/source" component={AppSourcePage} />
      <Route path="/console/projects/:project/apps/:app/source/builds/:build" component={SourceBuildPage} />
      <Route path="/console/projects/:project/domains" component={Domains} />
      <Route path="/console/projects/:project/domains/:domain" component={DomainPage} />
      <Route path="/console/projects/:project/databases" component={Databases} />
      <Route path="/console/projects/:project/members" component={Members} />
      <Route path="/console/projects/:project/audit" component={Audit} />
      <Route path="/console/projects/:project/databases/:database" component={DatabasePage} />
      <Route default component={NotFound} />
    </Router>
  );
}

function NotFound() {
  return (
    <main id="main">
      <h1>Not found</h1>
      <p>
        <a href="/console/">Back to your projects</a>
      </p>
    </main>
  );
}

render(
  // Only the console's own paths are routed in the page; others (the OpenID sign-in, the API) are real navigations.
  <LocationProvider scope="/console/">
    <SessionProvider>
      <Console />
    </SessionProvider>
  </LocationProvider>,
  document.getElementById('app') as HTMLElement,
);
