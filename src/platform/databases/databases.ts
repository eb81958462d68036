import { randomBytes } from 'node:crypto';
import { appliedElsewhere, refuseDeleteOfApplied, refusePatchAppliedElsewhere } from '../applied-elsewhere.ts';
import { namespaceRefusal } from '../namespace-refusal.ts';
import { DatabaseReasons, RESTORE_ANNOTATION, type Database, type DatabaseDurability, type DatabaseLimitsSpec, type DatabaseTokenGrant } from '../../apis/v1alpha1/database.ts';
import { findCondition, isTrue } from '../../conditions/index.ts';
import { BadRequestError, ConflictError, NotFoundError, PublicError } from '../../errors.ts';
import { isAlreadyExists, objectClient, retryOnConflict, isGoneFrom, objectKey, waitFor, waitForAnswer, type Informer, type KubeConnection, type ObjectClient } from '../../kube/index.ts';
import { DNS_LABEL_PATTERN } from '../../apis/v1alpha1/strings.ts';
import { DATABASES, PROJECT_LABEL, PROJECTS } from '../resources.ts';
import { roleIn } from '../project-reader.ts';
import type { Project } from '../../apis/v1alpha1/index.ts';
import { ForbiddenError } from '../../auth/errors.ts';
import type { Principal } from '../../auth/authenticate.ts';
import { expiryWithin } from '../../auth/issue-token.ts';
import { databaseTokenSha256, generateDatabaseToken, newDatabaseTokenId } from './database-token.ts';
import { databaseDetailView, databaseView, pendingRestoreRequest, type DatabaseDetailView, type DatabaseView } from './database-view.ts';

const NAME = new RegExp(DNS_LABEL_PATTERN);
/** Databases one project may have (Turso's free plan allows 100 per organization; D1 10 per account). */
export const MAX_DATABASES_PER_PROJECT = 50;
/** Tokens one database accepts at once: its database token and query tokens (spec.tokens' bound). */
export const MAX_TOKENS_PER_DATABASE = 32;
/** The longest a token may be made to live, when it expires at all. */
const MAX_EXPIRY_SECONDS = 366 * 24 * 3600;

export interface CreateDatabaseInput {
  name: string;
  durability?: DatabaseDurability;
  /** Point-in-time restore: start as a copy of another database of the project as it was at `timestamp`. */
  restore_from?: { database: string; timestamp: string };
  limits?: LimitsInput;
}

/** Limits a database asks for (the engine's defaults for what is left out; it refuses more than its maxima). */
export interface LimitsInput {
  statement_timeout_ms?: number;
  max_size_bytes?: number;
  rows_read_per_day?: number;
  rows_written_per_day?: number;
}

/** What a create answers: the database, whether this request made it, and its token when it did. */
export interface CreatedDatabase {
  view: DatabaseView;
  created: boolean;
  token?: string;
  /** When that token expires: the minting token's own expiry (`expiryWithin`), if it has one. */
  tokenExpiresAt?: string;
  /** False when the controller had not answered within the bound: the database is still being provisioned. */
  ready: boolean;
}

/** A token as minted: the only time its value is seen. */
export interface MintedToken {
  token: string;
  tokenId: string;
  readOnly: boolean;
  expiresAt?: string;
  /** False when the engine had not taken the token within the bound (it will, shortly). */
  applied: boolean;
}

/** What an in-place restore answers: done with its undo point, or still running when the bound passed. */
export type InPlaceRestoreResult = { view: DatabaseDetailView; done: true; restoredTo: string; undoPoint: string } | { view: DatabaseDetailView; done: false };

export interface TokenOptions {
  read_only?: boolean;
  expires_in_seconds?: number;
}

/**
 * Who mints a database token: what it makes expires no later than its own token (a short-lived or leaked API token
 * must not make itself a database token that never expires), as for personal and git tokens.
 */
export type TokenMinter = Pick<Principal, 'expiresAt' | 'session'> & { readonly userId?: string; readonly admin?: boolean };

/**
 * Databases for the REST routes. Every change is intent on the Database resource (its spec: name, durability,
 * restore source, token hashes) and an answer from the Database controller, watched for at most
 * `answerWithinMs` (restores: `restoreAnswerMs`). Tokens are generated here and shown once; only their SHA-256
 * goes into the resource, and the engine checks tokens by it.
 */
export class DatabaseDirectory {
  readonly #client: ObjectClient<Database>;
  readonly #projects: ObjectClient<Project>;
  readonly #cache: Informer<Database>;
  readonly #answerWithinMs: number;
  readonly #restoreAnswerMs: number;
  readonly #now: () => Date;

  readonly #memberNow: (project: string, userId: string) => Promise<boolean>;

  constructor(
    conn: KubeConnection,
    cache: Informer<Database>,
    options: { answerWithinMs?: number; restoreAnswerMs?: number; now?: () => Date; memberNow?: (project: string, userId: string) => Promise<boolean> } = {},
  ) {
    this.#client = objectClient<Database>(conn, DATABASES);
    this.#projects = objectClient<Project>(conn, PROJECTS);
    this.#cache = cache;
    this.#answerWithinMs = options.answerWithinMs ?? 10_000;
    this.#restoreAnswerMs = options.restoreAnswerMs ?? 60_000;
    this.#now = options.now ?? (() => new Date());
    this.#memberNow = options.memberNow ?? (async (project, userId) => roleIn(await this.#projects.get('', project), userId) !== undefined);
  }

  /** The project's databases, by name; an empty list when it has none. */
  list(project: string): DatabaseView[] {
    return this.#inProject(project)
      .map(databaseView)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** @throws NotFoundError */
  get(project: string, ref: string): DatabaseDetailView {
    return databaseDetailView(this.#find(project, ref));
  }

  /**
   * Creates the database and answers its token, once the controller has it served (or the bound passed). The
   * same name again answers the existing database with `created: false` and no token: tokens are shown once,
   * and a new one would silently cut off whoever holds the first (rotate for that).
   */
  async create(project: string, input: CreateDatabaseInput, minter: TokenMinter): Promise<CreatedDatabase> {
    if (!NAME.test(input.name)) {
      throw new BadRequestError(`Invalid database name ${JSON.stringify(input.name)}: use 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit.`);
    }
    const existing = this.#cache.get(`${project}/${input.name}`);
    if (existing && !existing.metadata?.deletionTimestamp) return { view: databaseView(existing), created: false, ready: existing.status?.state === 'ready' };
    if (existing) throw new ConflictError(`Database ${input.name} is being deleted; create it again once it is gone.`);
    if (this.#inProject(project).length >= MAX_DATABASES_PER_PROJECT) {
      throw new ConflictError(`Project ${project} has ${MAX_DATABASES_PER_PROJECT} databases, the most a project may have; delete one first.`);
    }
    if (input.restore_from) this.#checkRestorePoint(project, input.restore_from);

    const minted = this.#mint({}, minter);
    await this.#refuseFormerMember(project, minter);
    let written: Database;
    try {
      written = await this.#client.create({
        metadata: { name: input.name, namespace: project, labels: { [PROJECT_LABEL]: project } },
        spec: {
          displayName: input.name,
          durability: input.durability ?? 'async',
          tokens: [minted.grant],
          ...limitsSpec(input.limits),
          ...(input.restore_from ? { restoreFrom: { database: this.#find(project, input.restore_from.database).metadata?.name ?? '', timestamp: input.restore_from.timestamp } } : {}),
        },
      });
    } catch (err) {
      if (isAlreadyExists(err)) {
        // Created by a request racing this one: its answer stands, this one answers as a repeat.
        const other = await this.#client.get(project, input.name);
        if (other) return { view: databaseView(other), created: false, ready: other.status?.state === 'ready' };
      }
      const refusal = namespaceRefusal(err, project);
      if (refusal) throw refusal;
      throw err;
    }
    // Removed while it was being made (after the check above): the database goes, with the token nobody else has.
    await this.#refuseFormerMember(project, minter, () => this.#client.delete(project, input.name, { preconditions: { uid: written.metadata?.uid } }));
    const answered = await waitForAnswer(this.#cache, written, (d) => settled(d), input.restore_from ? this.#restoreAnswerMs : this.#answerWithinMs);
    if (answered.status?.state === 'failed') {
      // Nothing of it is usable (a restore point the engine refused): it does not stand. The caller's next read
      // must see it gone or going, so the answer waits for this process's cache to show the delete.
      await this.#client.delete(project, input.name, { preconditions: { uid: written.metadata?.uid } });
      await waitFor(this.#cache, objectKey(written), isGoneFrom(written), this.#answerWithinMs);
      throw new PublicError(422, `The database could not be created: ${failureMessage(answered)}`);
    }
    return {
      view: databaseView(answered),
      created: true,
      token: minted.token,
      ...(minted.shown.expiresAt ? { tokenExpiresAt: minted.shown.expiresAt } : {}),
      ready: answered.status?.state === 'ready',
    };
  }

  /**
   * Sets the limits the database asks for (what is left out: the engine's default) and waits for the engine to
   * apply them. Answers the database, and whether they were applied within the bound.
   *
   * @throws PublicError 422 when the engine refuses them (more than it allows); the database keeps the limits it had.
   */
  async setLimits(project: string, ref: string, limits: LimitsInput): Promise<{ view: DatabaseDetailView; applied: boolean }> {
    const name = this.#find(project, ref).metadata?.name ?? '';
    let previous: DatabaseLimitsSpec | undefined;
    const written = await retryOnConflict(async () => {
      const current = await this.#client.get(project, name);
      if (!current || current.metadata?.deletionTimestamp) throw new NotFoundError(`No database ${ref} in project ${project}.`);
      previous = current.spec.limits;
      // A merge patch with null removes what the request leaves out, so the engine's default applies to it;
      // a limit a GitOps tool applies is kept instead (that tool's to change).
      const asked = { ...appliedLimits(current), ...limitsSpec(limits).limits };
      const patch = { metadata: { resourceVersion: current.metadata?.resourceVersion }, spec: { limits: mergePatch(asked) } };
      refusePatchAppliedElsewhere(current, patch);
      return this.#client.patch(project, name, patch);
    });
    const answered = await waitForAnswer(this.#cache, written, settled, this.#answerWithinMs);
    const provisioned = findCondition(answered.status?.conditions, 'Provisioned');
    const generation = written.metadata?.generation ?? 0;
    if (provisioned?.reason === DatabaseReasons.LimitOutOfRange && (provisioned.observedGeneration ?? 0) >= generation) {
      // Refused: the spec goes back to what the engine applies, unless someone changed it since.
      await this.#client
        .patch(project, name, {
          metadata: { resourceVersion: answered.metadata?.resourceVersion },
          spec: { limits: mergePatch(previous ?? {}) },
        })
        .catch(() => undefined);
      throw new PublicError(422, `The limits were refused: ${provisioned.message ?? 'more than the engine allows'}`);
    }
    const applied = (answered.status?.observedGeneration ?? 0) >= generation && provisioned?.status === 'True';
    return { view: databaseDetailView(answered), applied };
  }

  /** Replaces every token of the database with a new database token: earlier ones stop working once applied. */
  async rotate(project: string, ref: string, options: TokenOptions, minter: TokenMinter): Promise<MintedToken> {
    const minted = this.#mint(options, minter);
    await this.#refuseFormerMember(project, minter);
    const applied = await this.#writeTokens(project, ref, () => [minted.grant]);
    // Removed meanwhile: the token they were about to be shown is replaced by one nobody is shown (the project's
    // members rotate to have one), not left as the database's only token in the hands of someone gone.
    await this.#refuseFormerMember(project, minter, () => {
      const unseen = this.#mint({}, minter).grant;
      return this.#writeTokens(project, ref, (tokens) => tokens.map((t) => (t.id === minted.grant.id ? unseen : t)));
    });
    return { ...minted.shown, applied };
  }

  /** Adds a query token (a further token of the database, read-only and expiring if asked); earlier ones stay. */
  async addQueryToken(project: string, ref: string, options: TokenOptions, minter: TokenMinter): Promise<MintedToken> {
    const minted = this.#mint(options, minter);
    if (minter.userId) minted.grant = { ...minted.grant, mintedBy: minter.userId };
    const now = this.#now().getTime();
    const applied = await this.#writeTokens(project, ref, (tokens) => {
      const live = tokens.filter((t) => t.expiresAt === undefined || Date.parse(t.expiresAt) > now);
      if (live.length >= MAX_TOKENS_PER_DATABASE) {
        throw new ConflictError(`The database has ${MAX_TOKENS_PER_DATABASE} live tokens, the most it may have; rotate its token to revoke them all.`);
      }
      return [...live, minted.grant];
    });
    // Checked after the write, from the apiserver: a removal that read this database before the token landed took
    // nothing of it, and one that read it after (the member then gone from the project read here) drops it itself.
    await this.#refuseFormerMember(project, minter, () => this.#writeTokens(project, ref, (tokens) => tokens.filter((t) => t.id !== minted.grant.id)));
    return { ...minted.shown, applied };
  }

  /**
   * Drops the query tokens `userId` made on the project's databases (they left the project: what they could reach
   * through it goes with them, as their git access does). The databases' own tokens stay. Answers how many went.
   */
  async dropQueryTokensOf(project: string, userId: string): Promise<number> {
    // Each database read live (a token made a moment ago may not be cached yet), written only where one of theirs
    // is, all at once, and waited for together (at most the answer bound once, not once per database): the removal
    // answers once the engines refuse the tokens, as a rotation does.
    // Listed live too: a database made a moment ago through another API replica is not in this one's cache yet.
    const names = (await this.#client.list(project)).items.flatMap((d) => (d.metadata?.namespace === project && d.metadata.name ? [d.metadata.name] : []));
    const dropped = await Promise.all(
      names.map((name) =>
        retryOnConflict(async () => {
          const current = await this.#client.get(project, name);
          const tokens = current?.spec.tokens ?? [];
          const kept = tokens.filter((t) => t.mintedBy !== userId);
          if (!current || current.metadata?.deletionTimestamp || kept.length === tokens.length) return 0;
          const written = await this.#client.patch(project, name, { metadata: { resourceVersion: current.metadata?.resourceVersion }, spec: { tokens: kept } });
          await waitForAnswer(this.#cache, written, settled, this.#answerWithinMs);
          return tokens.length - kept.length;
        }),
      ),
    );
    return dropped.reduce((a, b) => a + b, 0);
  }

  /**
   * Restores the database IN PLACE to its data at `timestamp` (keeping its id, URL and tokens): writes the request
   * on the Database ({@link RESTORE_ANNOTATION}) and waits, watching and at most the restore bound, for the
   * controller to echo it in `status.lastRestore`. `undoPoint` is the state just before, to undo it with.
   *
   * @throws PublicError 422 outside the restore window (the detail names it); ConflictError while another restore
   * runs, or before the database is ready or has a copy; NotFoundError
   */
  async restoreInPlace(project: string, ref: string, timestamp: string): Promise<InPlaceRestoreResult> {
    const name = this.#find(project, ref).metadata?.name ?? '';
    const at = Date.parse(timestamp);
    if (Number.isNaN(at)) throw new BadRequestError(`timestamp ${JSON.stringify(timestamp)} is not an RFC 3339 time.`);
    const request = `${new Date(at).toISOString()}#${randomBytes(4).toString('hex')}`;
    const written = await retryOnConflict(async () => {
      const current = await this.#client.get(project, name);
      if (!current || current.metadata?.deletionTimestamp) throw new NotFoundError(`No database ${ref} in project ${project}.`);
      if (pendingRestoreRequest(current) !== undefined) throw new ConflictError(`Database ${name} is being restored; retry once that restore is done.`);
      if (current.status?.state !== 'ready') throw new ConflictError(`Database ${name} is ${databaseView(current).status}, not ready.`);
      const window = current.status.restoreWindow;
      if (!window) throw new ConflictError(`Database ${name} has no copy in the object store yet; retry in a few seconds.`);
      if (at < Date.parse(window.earliest) || at > this.#now().getTime()) {
        throw new PublicError(422, `timestamp ${timestamp} is outside the restore window of ${name}: ${window.earliest} to now (latest commit ${window.latest}).`);
      }
      const patch = { metadata: { resourceVersion: current.metadata?.resourceVersion, annotations: { [RESTORE_ANNOTATION]: request } } };
      refusePatchAppliedElsewhere(current, patch);
      return this.#client.patch(project, name, patch);
    });
    const answered = await waitForAnswer(this.#cache, written, (d) => d.status?.lastRestore?.request === request, this.#restoreAnswerMs);
    const last = answered.status?.lastRestore;
    if (last?.request !== request) return { view: databaseDetailView(answered), done: false };
    if (last.outcome !== 'Restored') throw new PublicError(422, `The restore was refused: ${last.message}`);
    return { view: databaseDetailView(answered), done: true, restoredTo: last.restoredTo ?? '', undoPoint: last.undoPoint ?? '' };
  }

  /** Deletes the database; answers whether it is gone within the bound (the engine and the bucket data with it). */
  async delete(project: string, ref: string): Promise<{ gone: boolean; view: DatabaseView }> {
    const found = this.#find(project, ref);
    const { namespace = '', name = '', uid } = found.metadata ?? {};
    await refuseDeleteOfApplied(this.#client, namespace, name, uid);
    await this.#client.delete(namespace, name, { preconditions: { uid } });
    const { object } = await waitFor(this.#cache, `${namespace}/${name}`, (d) => d === undefined || d.metadata?.uid !== uid, this.#answerWithinMs);
    const gone = object === undefined || object.metadata?.uid !== uid;
    return { gone, view: { ...databaseView(found), status: 'deleting' } };
  }

  /** The database the query route runs SQL on: its tenant id (the query token is checked by the engine). */
  /**
   * The hash of `token` when it is one the database accepts (its own or a query token; expiry is cw-db's to judge),
   * else undefined: what the query route's rate limit knows a caller by (`rateLimitBy`).
   */
  tokenHolder(project: string, ref: string, token: string): string | undefined {
    const db = this.#cache.get(`${project}/${ref}`) ?? this.#inProject(project).find((d) => d.status?.databaseId === ref);
    const sha256 = databaseTokenSha256(token);
    return db?.spec.tokens?.some((t) => t.sha256 === sha256) ? sha256 : undefined;
  }

  queryTarget(project: string, ref: string, token: string): { tenantId: string } {
    const db = this.#find(project, ref);
    if (db.status?.state === 'ready' && db.status.tenantId) return { tenantId: db.status.tenantId };
    // cw-db checks the token of a ready database; of one not ready, only a caller holding one of its tokens may
    // learn its state (anyone else would learn that a database of that name exists in another project).
    const sha256 = databaseTokenSha256(token);
    if (!(db.spec.tokens ?? []).some((t) => t.sha256 === sha256)) throw new NotFoundError(`No database ${ref} in project ${project}.`);
    throw new ConflictError(`Database ${db.metadata?.name ?? ref} is ${databaseView(db).status}, not ready.`);
  }

  #inProject(project: string): Database[] {
    return this.#cache.list(project).filter((d) => d.metadata?.namespace === project);
  }

  /** By name, else by database_id. @throws NotFoundError */
  #find(project: string, ref: string): Database {
    const byName = this.#cache.get(`${project}/${ref}`);
    const found = byName ?? this.#inProject(project).find((d) => d.status?.databaseId === ref);
    if (!found) throw new NotFoundError(`No database ${ref} in project ${project}.`);
    return found;
  }

  #checkRestorePoint(project: string, from: { database: string; timestamp: string }): void {
    const source = this.#find(project, from.database);
    const at = Date.parse(from.timestamp);
    if (Number.isNaN(at)) throw new BadRequestError(`restore_from.timestamp ${JSON.stringify(from.timestamp)} is not an ISO 8601 time.`);
    const window = source.status?.restoreWindow;
    if (!window) throw new ConflictError(`Database ${from.database} has no copy in the object store yet; retry in a few seconds.`);
    if (at > this.#now().getTime()) throw new PublicError(422, `restore_from.timestamp is in the future.`);
    if (at < Date.parse(window.earliest)) throw new PublicError(422, `restore_from.timestamp is before the earliest point kept for ${from.database} (${window.earliest}).`);
  }

  #mint(options: TokenOptions, minter: TokenMinter): { token: string; grant: DatabaseTokenGrant; shown: Omit<MintedToken, 'applied'> } {
    const seconds = options.expires_in_seconds;
    if (seconds !== undefined && (!Number.isInteger(seconds) || seconds < 60 || seconds > MAX_EXPIRY_SECONDS)) {
      throw new BadRequestError(`expires_in_seconds must be a whole number from 60 to ${MAX_EXPIRY_SECONDS}.`);
    }
    const token = generateDatabaseToken();
    const tokenId = newDatabaseTokenId();
    const readOnly = options.read_only ?? false;
    const expiresAt = expiryWithin(minter, seconds === undefined ? undefined : new Date(this.#now().getTime() + seconds * 1000))?.toISOString();
    const grant: DatabaseTokenGrant = { id: tokenId, sha256: databaseTokenSha256(token), ...(readOnly ? { readOnly } : {}), ...(expiresAt ? { expiresAt } : {}) };
    return { token, grant, shown: { token, tokenId, readOnly, ...(expiresAt ? { expiresAt } : {}) } };
  }

  /**
   * Refuses (403) someone no longer a member, read from the apiserver rather than the cache their request was
   * authorised from: a token made by someone removed a moment ago (an API replica's cache behind) outlives the
   * removal, which drops only the query tokens it finds. `takeBack` first undoes what was made for them.
   * Administrators are not members and keep theirs.
   */
  async #refuseFormerMember(project: string, minter: TokenMinter, takeBack?: () => Promise<unknown>): Promise<void> {
    if (minter.admin || minter.userId === undefined || (await this.#memberNow(project, minter.userId))) return;
    await takeBack?.();
    throw new ForbiddenError(`You are no longer a member of the project ${project}.`);
  }

  /** Writes the database's tokens (optimistically, against its resourceVersion) and waits for the engine to have them. */
  async #writeTokens(project: string, ref: string, next: (tokens: DatabaseTokenGrant[]) => DatabaseTokenGrant[]): Promise<boolean> {
    const name = this.#find(project, ref).metadata?.name ?? '';
    const written = await retryOnConflict(async () => {
      const current = await this.#client.get(project, name);
      if (!current || current.metadata?.deletionTimestamp) throw new NotFoundError(`No database ${ref} in project ${project}.`);
      const patch = { metadata: { resourceVersion: current.metadata?.resourceVersion }, spec: { tokens: next(current.spec.tokens ?? []) } };
      refusePatchAppliedElsewhere(current, patch);
      return this.#client.patch(project, name, patch);
    });
    const answered = await waitForAnswer(this.#cache, written, settled, this.#answerWithinMs);
    return (answered.status?.observedGeneration ?? 0) >= (written.metadata?.generation ?? 0) && answered.status?.state === 'ready';
  }
}

/** The spec's `limits` for what a request asks (none when it asks nothing). */
function limitsSpec(limits: LimitsInput | undefined): { limits?: DatabaseLimitsSpec } {
  if (limits === undefined || Object.values(limits).every((v) => v === undefined)) return {};
  return {
    limits: {
      ...(limits.statement_timeout_ms === undefined ? {} : { statementTimeoutMs: limits.statement_timeout_ms }),
      ...(limits.max_size_bytes === undefined ? {} : { maxSizeBytes: limits.max_size_bytes }),
      ...(limits.rows_read_per_day === undefined ? {} : { rowsReadPerDay: limits.rows_read_per_day }),
      ...(limits.rows_written_per_day === undefined ? {} : { rowsWrittenPerDay: limits.rows_written_per_day }),
    },
  };
}

/** The database's limits that a GitOps tool applies, as it has them. */
function appliedLimits(database: Database): DatabaseLimitsSpec {
  return Object.fromEntries(Object.entries(database.spec.limits ?? {}).filter(([key]) => appliedElsewhere(database, ['spec', 'limits', key])));
}

/** Every limit as a merge patch: null removes what `limits` leaves out, so the engine's default applies to it. */
function mergePatch(limits: DatabaseLimitsSpec): Record<keyof Required<DatabaseLimitsSpec>, number | null> {
  return {
    statementTimeoutMs: limits.statementTimeoutMs ?? null,
    maxSizeBytes: limits.maxSizeBytes ?? null,
    rowsReadPerDay: limits.rowsReadPerDay ?? null,
    rowsWrittenPerDay: limits.rowsWrittenPerDay ?? null,
  };
}

/** The controller has answered this generation: served, or failed for good. */
function settled(d: Database): boolean {
  return isTrue(d.status?.conditions, 'Ready') || d.status?.state === 'failed';
}

function failureMessage(d: Database): string {
  return d.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? 'the engine refused it';
}
