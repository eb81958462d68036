import type { KubeConnection } from '../../src/kube/index.ts';

/** Who is asked about: a user name and the groups it authenticates with. */
export interface Subject {
  readonly user: string;
  readonly groups: readonly string[];
}

/** One request to ask about: `resource` may name a subresource (`runtimeapps/status`); no `namespace`: cluster-wide. */
export interface Access {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** A ServiceAccount as the apiserver authenticates its tokens. */
export function serviceAccount(namespace: string, name: string): Subject {
  return { user: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
}

/** A person as an authenticator would name them (with only the group every signed-in user has). */
export function person(name: string): Subject {
  return { user: name, groups: ['system:authenticated'] };
}

/** Whether `subject` may make the request `access`: the apiserver's own authorizers answer (a SubjectAccessReview). */
export async function mayDo(conn: KubeConnection, subject: Subject, access: Access): Promise<boolean> {
  const [resource, subresource] = access.resource.split('/');
  const review = await conn.api.request<{ status: { allowed: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: subject.user,
        groups: subject.groups,
        resourceAttributes: {
          verb: access.verb,
          group: access.group,
          resource,
          ...(subresource ? { subresource } : {}),
          ...(access.namespace ? { namespace: access.namespace } : {}),
          ...(access.name ? { name: access.name } : {}),
        },
      },
    },
  });
  return review.status.allowed;
}
