// A database's quotas on its page: the size quota and the daily row quotas with today's counts (UTC days), and
// what a reached quota refuses, as the Database's LimitReached condition words it.

interface QuotaFigures {
  usage: { size_bytes: number; today?: { day: string; rows_read: number; rows_written: number } };
  limits?: { max_size_bytes: number; rows_read_per_day?: number; rows_written_per_day?: number };
  limit_reached?: { quota: string; message: string };
}

/** "1,204 of 10,000": a count against its quota, or only the count when the quota is not known yet. */
function against(count: number, quota: number | undefined): string {
  return quota === undefined ? count.toLocaleString('en-US') : `${count.toLocaleString('en-US')} of ${quota.toLocaleString('en-US')}`;
}

export function DatabaseQuotas({ d }: { d: QuotaFigures }) {
  const today = d.usage.today;
  return (
    <section aria-labelledby="quotas">
      <h2 id="quotas">Quotas</h2>
      {d.limit_reached && (
        <p class="error" role="alert">
          Quota reached: {d.limit_reached.message}
        </p>
      )}
      <dl>
        <dt>Size</dt>
        <dd>{against(d.usage.size_bytes, d.limits?.max_size_bytes)} bytes</dd>
        <dt>Rows read today</dt>
        <dd>{against(today?.rows_read ?? 0, d.limits?.rows_read_per_day)}</dd>
        <dt>Rows written today</dt>
        <dd>{against(today?.rows_written ?? 0, d.limits?.rows_written_per_day)}</dd>
      </dl>
      <p class="muted">Days are UTC{today ? ` (today: ${today.day})` : ''}: the row counts start again at midnight UTC. Change the quotas with `cw db update`.</p>
    </section>
  );
}
