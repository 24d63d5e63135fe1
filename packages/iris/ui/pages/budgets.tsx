import { useState } from 'preact/hooks';
import type { BudgetsResponse } from '../../src/dashboard/api-types.ts';
import { getJson } from '../api.ts';
import { time } from '../format.ts';
import { navigate, usePoll } from '../router.ts';

/** Users with their budget limit, band cap and current spend. */
export function BudgetsPage() {
  const [data, setData] = useState<BudgetsResponse | null>(null);
  const [error, setError] = useState('');
  usePoll(() => void getJson<BudgetsResponse>('budgets').then(setData, (e: Error) => setError(e.message)), 5000, []);
  if (error && !data) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  return (
    <section>
      <h2>User budgets</h2>
      <p class="muted small">Spend is the summed resource value of a user's live tasks outside the BATCH band; over the limit, INTERACTIVE work runs as BATCH.</p>
      <table>
        <thead>
          <tr>
            <th>User</th>
            <th>Spend</th>
            <th>Limit</th>
            <th>Use</th>
            <th>Best band</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {data.budgets.map((b) => {
            const share = b.budgetLimit > 0 ? Math.min(1, b.spend / b.budgetLimit) : 0;
            return (
              <tr key={b.user}>
                <td>
                  <a href="#" onClick={(e) => (e.preventDefault(), navigate('jobs', { user: b.user }))}>
                    {b.user}
                  </a>
                </td>
                <td>{b.spend.toLocaleString()}</td>
                <td>{b.budgetLimit === 0 ? 'unlimited' : b.budgetLimit.toLocaleString()}</td>
                <td>
                  {b.budgetLimit > 0 && (
                    <span class="meter">
                      <span class={share >= 1 ? 'fill over' : 'fill'} style={{ width: `${Math.round(share * 100)}%` }} />
                    </span>
                  )}
                </td>
                <td>{b.maxBand ?? 'any'}</td>
                <td class="muted">{time(b.updatedAtMs)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {data.budgets.length === 0 && <p class="muted">No user has a budget or running work.</p>}
    </section>
  );
}
