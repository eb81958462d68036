import { OwnerShareError } from '../owner-share-error.ts';

/** 429 for the owner's own tasks run on request (retry once one ends), 503 for the instance's. */
export class TooManyTasksError extends OwnerShareError<'owner_tasks_limit' | 'tasks_busy'> {
  override readonly name = 'TooManyTasksError';
  constructor(scope: 'owner' | 'instance', message: string) {
    super(scope, { owner: 'owner_tasks_limit', instance: 'tasks_busy' }, message, 30);
  }
}
