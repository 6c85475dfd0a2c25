import Link from "next/link";

export default function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is nothing here. <Link href="/">Back to the leaderboard</Link>.
      </p>
    </>
  );
}
