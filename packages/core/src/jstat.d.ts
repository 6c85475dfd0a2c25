/** The part of jstat (no types of its own) that core's statistics use. */
declare module "jstat" {
  const jStat: {
    studentt: {
      /** the p-quantile of Student's t distribution with dof degrees of freedom */
      inv(p: number, dof: number): number;
    };
  };
  export default jStat;
}
