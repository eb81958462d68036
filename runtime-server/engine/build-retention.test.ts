import { describe, expect, it } from 'vitest';
import type { PreparedBuild } from './build-store.ts';
import { retention } from './build-retention.ts';
import type { AppDeployment } from './ports.ts';
import type { Served } from './served.ts';
import type { LiveApp } from './worker-code.ts';

const app = (appId: string, buildId: string): AppDeployment => ({ project: 'p', appId, buildId, env: {}, hostnames: [] });
const live = (appId: string, buildId: string): LiveApp => ({ app: app(appId, buildId), build: { buildId } as PreparedBuild });
const served = (appId: string, buildId: string): Served => ({ live: live(appId, buildId), id: `p/${appId}@${buildId}`, tailed: false });

describe('retention', () => {
  const code = new Map([
    ['p/a@b2', live('a', 'b2')],
    ['p/a@b1', live('a', 'b1')],
    ['p/gone@b9', live('gone', 'b9')],
  ]);

  it('keeps desired and served builds, forgets ids nothing serves and their builds', () => {
    const { unusedIds, keepBuilds } = retention([app('a', 'b3')], [served('a', 'b2')], code, false);
    expect(unusedIds.sort()).toEqual(['p/a@b1', 'p/gone@b9']);
    expect([...keepBuilds].sort()).toEqual(['p.a.b2', 'p.a.b3']);
  });

  it('forgets no id while a workerd is retiring, so their builds stay', () => {
    const { unusedIds, keepBuilds } = retention([app('a', 'b3')], [served('a', 'b2')], code, true);
    expect(unusedIds).toEqual([]);
    expect([...keepBuilds].sort()).toEqual(['p.a.b1', 'p.a.b2', 'p.a.b3', 'p.gone.b9']);
  });
});
