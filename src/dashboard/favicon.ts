/** The dashboard's icon: a key on the header's navy, drawn in SVG so one small file serves every size. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#14213d"/>
<circle cx="11" cy="16" r="5.5" fill="none" stroke="#fff" stroke-width="3"/>
<path d="M16 16h11M23 16v5M27 16v4" stroke="#fff" stroke-width="3" stroke-linecap="round"/>
</svg>
`;
