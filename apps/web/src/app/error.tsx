"use client";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <>
      <h1>Something failed</h1>
      <p className="muted">The server could not render this page{error.digest ? ` (error ${error.digest})` : ""}.</p>
      <button type="button" onClick={reset}>
        Try again
      </button>
    </>
  );
}
