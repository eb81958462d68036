import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { BuildCatalog } from '../../src/platform/builds.ts';
import { parseDeployHostnames } from '../../src/platform/deploy-hostnames.ts';
import { ArtifactTooLargeError } from '../../src/app-artifacts/errors.ts';
import { AppParams, ArtifactBody, Build, DeployQuery, Deployment, DeployResult, RollbackBody } from '../schemas/app.ts';
import { errorResponses } from '../schemas/problem.ts';
import { principalOf } from '../plugins/auth.ts';
import { byUser } from '../../src/platform/deployed-by.ts';
import { integerQuery } from './integer-query.ts';
import { pacedUpload } from './paced-upload.ts';
import { DEFAULT_UPLOAD_LIMITS, UploadSlots, type UploadLimits } from './upload-slots.ts';
import type { Readable } from 'node:stream';
import { BadRequestError } from '../../src/errors.ts';

const tags = ['apps'];
const ARTIFACT_TYPE = 'application/octet-stream';

/**
 * Refuses a `hostnames` value in the parser's own words (naming the name at fault) before the schema's
 * pattern, whose failure could only quote the pattern. Anything the parser takes, the pattern checks after.
 */
const hostnamesInWords: preValidationHookHandler = (request, _reply, done) => {
  const { hostnames } = request.query as Record<string, unknown>;
  try {
    if (typeof hostnames === 'string') parseDeployHostnames(hostnames);
    done();
  } catch (err) {
    done(err as Error);
  }
};

function contentLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  return header === undefined || !/^[0-9]+$/.test(header) ? undefined : Number(header);
}

export function deploymentRoutes(app: FastifyInstance, builds: BuildCatalog, uploadLimits: UploadLimits = DEFAULT_UPLOAD_LIMITS): void {
  const slots = new UploadSlots(uploadLimits);
  // The upload's own content type lives in a context of its own: only this route reads raw bytes, and it
  // reads nothing else (a JSON body is a 415).
  app.register(async (upload) => {
    upload.removeAllContentTypeParsers();
    // The body stays a stream: the handler checks the app first and reads at most the artifact limit.
    upload.addContentTypeParser(ARTIFACT_TYPE, (_request, payload, done) => done(null, payload));
    upload.withTypeProvider<TypeBoxTypeProvider>().post('/v1/projects/:projectId/apps/:appId/deployments', {
      config: { auth: { scope: 'deploys:write', project: true } },
      preValidation: [integerQuery('max_concurrent_requests'), hostnamesInWords],
      schema: {
        tags,
        summary: 'Deploy: upload a build artifact (`.tar.zst`) and make it the app’s active build',
        description:
          'The body is validated in full before anything is stored (400 names the problem; 413 names the limit; 409 or 413 names the ' +
          'figures when the project’s quota on unpacked builds would be passed). The artifact is ' +
          'stored under its content address, so uploading the same artifact again is the same build. It becomes active only once stored. ' +
          `At most ${DEFAULT_UPLOAD_LIMITS.perUser} uploads of one user are read at once (429 past that) and ${DEFAULT_UPLOAD_LIMITS.total} in all (503), ` +
          `each within ${DEFAULT_UPLOAD_LIMITS.timeoutMs / 1000} s and at ${DEFAULT_UPLOAD_LIMITS.minBytesPerSecond} bytes/s or more on average (408 otherwise; by default: the server may set others).`,
        consumes: [ARTIFACT_TYPE],
        params: AppParams,
        querystring: DeployQuery,
        body: ArtifactBody,
        response: { 200: DeployResult, ...errorResponses(404, 408, 409, 503) },
      },
      handler: async (request, reply) => {
        const { projectId, appId } = request.params;
        const { hostnames, max_concurrent_requests: maxConcurrentRequests } = request.query;
        const body = request.body;
        if (!body) throw new BadRequestError(`The body must be the build artifact (.tar.zst), sent as ${ARTIFACT_TYPE}.`);
        const slot = slots.take(principalOf(request).userId);
        try {
          return await builds.deploy(projectId, appId, pacedUpload(body as Readable, uploadLimits, slot), contentLength(request), {
            hostnames: hostnames === undefined ? undefined : parseDeployHostnames(hostnames),
            maxConcurrentRequests,
            by: byUser(principalOf(request).userId),
            stored: () => slot.release(),
          });
        } catch (err) {
          // The rest of an oversized upload is not worth reading: close the connection after the answer.
          if (err instanceof ArtifactTooLargeError && err.limit === 'compressedBytes') reply.header('connection', 'close');
          throw err;
        } finally {
          slot.release();
        }
      },
    });
  });

  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get('/v1/projects/:projectId/apps/:appId/builds', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: {
      tags,
      summary: 'List the app’s builds, newest first',
      params: AppParams,
      response: { 200: Type.Object({ builds: Type.Array(Build) }), ...errorResponses(404) },
    },
    handler: async (request) => ({ builds: builds.list(request.params.projectId, request.params.appId) }),
  });

  r.get('/v1/projects/:projectId/apps/:appId/deployments', {
    config: { auth: { scope: 'apps:read', project: true } },
    schema: {
      tags,
      summary: 'The app’s deploy history: its latest activations of a build, newest first',
      description:
        'Every change of the active build is recorded by the operator, whoever made it (a deploy, a rollback, push to deploy, kubectl), ' +
        'with who made it, its rollout’s steps and when it was served to all traffic; at most the latest 20.',
      params: AppParams,
      response: { 200: Type.Object({ deployments: Type.Array(Deployment) }), ...errorResponses(404) },
    },
    handler: async (request) => ({ deployments: builds.history(request.params.projectId, request.params.appId) }),
  });

  r.post('/v1/projects/:projectId/apps/:appId/rollbacks', {
    config: { auth: { scope: 'deploys:write', project: true } },
    schema: {
      tags,
      summary: 'Roll back: make a stored build of the app active again, without an upload',
      description:
        'Any build `GET …/builds` lists can be selected. The app gets the deploy options that build was last deployed with (its ' +
        '`deploy_options`: host names and concurrency bound, a default where it left one out); a build without recorded options keeps ' +
        'the app’s current ones. Custom domains attached through `…/domains` stay attached. A recorded host name the app may no ' +
        'longer have (another app’s now: 409; a custom domain the project no longer controls: 403) refuses the rollback, naming it, ' +
        'and nothing changes. Answers the deploy result with `uploaded: false`.',
      params: AppParams,
      body: RollbackBody,
      response: { 200: DeployResult, ...errorResponses(404, 409, 503) },
    },
    handler: async (request) => builds.rollback(request.params.projectId, request.params.appId, request.body.build_id, byUser(principalOf(request).userId)),
  });
}
