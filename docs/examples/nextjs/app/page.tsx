// Rendered on every request (not prerendered at build time), so the greeting comes from the runtime's environment.
export const dynamic = 'force-dynamic';

export default function Home() {
  return (
    <main>
      <h1>{process.env.GREETING ?? 'Hello'} from Next.js on Cloudwright</h1>
      <p>Rendered at {new Date().toISOString()}.</p>
      <img src="/logo.svg" alt="logo" width={64} height={64} />
    </main>
  );
}
