/** "verified": the run passed the conformance suite (it completed), every cell is valid, and its target.json is known (the legend above the table says so once). */
export function VerifiedBadge({ verified }: { verified: boolean }) {
  return verified ? <span className="badge verified">verified</span> : <span className="badge unverified">unverified</span>;
}
