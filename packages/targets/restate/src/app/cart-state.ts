/** The state of a Cart object, read by its handlers in cart.ts and checkout.ts. */
export interface CartState {
  /** productId -> amount */
  items: Record<string, number>;
  checkedOut: boolean;
  orderId?: string;
}

export const CART_STATE = "cart";
