// A per-repository webhook's event filter (`spec.events`): the actions it wants and the refs it follows. Pure, so
// the catch-up and a redelivery's rebuild of a payload select exactly the same events.
import type { RefAction, RefEvent } from './ref-event.ts';
import { refGlob } from '../../src/git/ref-glob.ts';

export interface EventFilterSpec {
  /** The actions delivered; absent or empty: all. */
  readonly actions?: readonly RefAction[] | undefined;
  /** Full ref name patterns (`*`: any characters but `/`, `**`: any characters); absent or empty: every ref. */
  readonly refs?: readonly string[] | undefined;
}

/** Whether an event passes; both the action and the ref must be wanted. */
export type EventFilter = (event: RefEvent) => boolean;

/** The filter `spec` describes; an absent or empty spec passes everything. */
export function eventFilter(spec: EventFilterSpec | undefined): EventFilter {
  const actions = spec?.actions?.length ? new Set(spec.actions) : undefined;
  const refs = spec?.refs?.length ? spec.refs.map(refGlob) : undefined;
  return (event) => (actions === undefined || actions.has(event.action)) && (refs === undefined || refs.some((glob) => glob.matches(event.ref_name)));
}
