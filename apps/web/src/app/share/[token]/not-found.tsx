export default function ShareNotFound() {
  return (
    <section role="alert" data-testid="share-gone">
      <h1>This link does not open a replay</h1>
      <p>It does not exist, was revoked or has expired. Ask whoever sent it for a new link.</p>
    </section>
  );
}
