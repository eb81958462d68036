// The smallest Cloudwright runtime app: an ES module worker. `env` holds the app's environment
// variables (PUT /v1/projects/{projectId}/apps/{appId}/environment/GREETING).
export default {
  fetch(request, env) {
    const name = new URL(request.url).searchParams.get('name') ?? 'world';
    return new Response(`${env.GREETING ?? 'Hello'}, ${name}!\n`, {
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  },
};
