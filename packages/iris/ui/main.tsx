import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { OverviewResponse, WhoAmIView } from '../src/dashboard/api-types.ts';
import { getJson, postJson, whoAmI } from './api.ts';
import { AutoscalerPage } from './pages/autoscaler.tsx';
import { BudgetsPage } from './pages/budgets.tsx';
import { ExperimentsPage } from './pages/experiments.tsx';
import { JobPage } from './pages/job.tsx';
import { JobsPage } from './pages/jobs.tsx';
import { WorkersPage } from './pages/workers.tsx';
import { usePoll, useRoute } from './router.ts';

function Header({ page }: { page: string }) {
  const [overview, setOverview] = useState<OverviewResponse | null>(null);
  const [me, setMe] = useState<WhoAmIView | null>(null);
  useEffect(() => void whoAmI().then(setMe), []);
  const logout = () => void postJson('logout', {}).finally(() => window.location.assign('/login'));
  usePoll(() => void getJson<OverviewResponse>('overview').then(setOverview, () => undefined), 5000, []);
  const tab = (id: string, label: string, href = `#/${id}`) => (
    <a href={href} class={page === id || (id === 'jobs' && page === 'job') || (id === 'experiments' && page === 'experiment') ? 'tab active' : 'tab'}>
      {label}
    </a>
  );
  const counts = overview ? Object.entries(overview.jobCounts) : [];
  return (
    <header>
      <span class="brand">Iris</span>
      <nav>
        {tab('jobs', 'Jobs')}
        {tab('workers', 'Workers')}
        {overview?.features.autoscaler === true && tab('slices', 'Slices')}
        {overview?.features.budgets !== false && tab('users', 'Users')}
        {tab('experiments', 'Experiments')}
      </nav>
      <span class="summary">
        {overview && (
          <>
            {counts.map(([state, n]) => (
              <span key={state} class={`pill s-${state}`}>
                {state.toLowerCase()} {n}
              </span>
            ))}
            <span class="muted">
              {overview.workerCount} workers · v{overview.version}
            </span>
          </>
        )}
        {me?.authMode === 'api-keys' && me.user !== null && (
          <span class="muted">
            {me.user} ({me.role}) <button onClick={logout}>Log out</button>
          </span>
        )}
      </span>
    </header>
  );
}

function App() {
  const route = useRoute();
  let body;
  switch (route.page) {
    case 'job':
      body = <JobPage params={route.params} />;
      break;
    case 'workers':
      body = <WorkersPage />;
      break;
    case 'slices':
      body = <AutoscalerPage />;
      break;
    case 'users':
      body = <BudgetsPage />;
      break;
    case 'experiments':
    case 'experiment':
      body = <ExperimentsPage params={route.params} />;
      break;
    default:
      body = <JobsPage params={route.params} />;
  }
  return (
    <>
      <Header page={route.page} />
      <main>{body}</main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
