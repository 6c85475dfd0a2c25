import type { ByTagData, CellNote, SeriesRef } from "../types.ts";
import { ByTagLines } from "./ByTagChart.tsx";
import { EmptyState, Figure } from "./common.tsx";

/** Checkout latency (p50, p99) against the number of products in the cart (thesis: latency vs cart size). */
export function CartSizeChart(props: { systems: readonly SeriesRef[]; data: ByTagData | null; notes?: readonly CellNote[]; subtitle?: string }) {
  const empty = !props.data || props.data.rows.length === 0 || props.data.keys.length === 0;
  return (
    <Figure name="latency-cart-size" title="Checkout latency vs cart size" subtitle={props.subtitle} notes={props.notes}>
      {empty ? (
        <EmptyState>No checkout latency by cart size for this selection.</EmptyState>
      ) : (
        <ByTagLines systems={props.systems} data={props.data!} xLabel="products in the cart" />
      )}
    </Figure>
  );
}
