/** The two-stage check file the stage tests grade (one project, or a class of them with --projects). */
export const stagedCheckFile = (project: string): string => `project: ${project}
stages:
  - name: 1 nodes
    checks:
      - node: {name: R1, status: started}
      - node: {name: R2, status: started}
        points: 2
  - name: 2 links
    checks:
      - link: {a: "R1:e0", b: "R2:e0", clean: true}
`;
