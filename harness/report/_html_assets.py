# ruff: noqa: E501  (minified inline CSS and JS)
"""The inline stylesheet and scripts of report.html and the compare page (no network:
everything is in the file). ``GRAPH_JS`` draws a plan's dependency graph (shared by both
pages); ``JS`` is the report's case table."""

from __future__ import annotations

__all__ = ["COMPARE_JS", "CSS", "GRAPH_JS", "JS"]

CSS = """
:root{--pass:#1a7f37;--fail:#cf222e;--unparseable:#bc4c00;--missing:#6e7781;--stale:#8250df;
--error:#6639ba;--warn:#9a6700;--warnbg:#fff8c5;--line:#d0d7de;--muted:#57606a;--bg2:#f6f8fa;
--add:#dafbe1;--del:#ffebe9;--chg:#fff8c5}
*{box-sizing:border-box}
body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;
color:#1f2328;margin:0 auto;max-width:1300px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid
var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
.meta{color:var(--muted);font-size:13px}
.warn{background:var(--warnbg);border:1px solid #d4a72c;padding:8px 12px;border-radius:6px;margin:8px 0}
.headline{font-size:16px;margin:12px 0}
.verdict{font-size:15px;margin:6px 0;padding:6px 10px;border-left:4px solid var(--line);background:var(--bg2)}
.verdict.sig{border-left-color:var(--pass)}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--bg2);position:sticky;top:0}
th code{white-space:nowrap}
.heat tr>:first-child{position:sticky;left:0;background:#fff;z-index:1}
.heat tr:first-child>:first-child{background:var(--bg2)}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td code{white-space:nowrap}
td.w{color:var(--warn)}
.scroll{overflow-x:auto;max-width:100%}
.model-block .scroll{max-width:calc(100vw - 160px)}
.heat td.num{min-width:64px}
.chip{display:inline-block;min-width:16px;height:16px;line-height:16px;border-radius:3px;border:0;padding:0 2px;
color:#fff;font-size:11px;text-align:center;margin:0 1px;font-weight:600;font-family:inherit}
button.chip{cursor:pointer}button.chip.sel{outline:2px solid #0969da;outline-offset:1px}
.s-p{background:var(--pass)}.s-f{background:var(--fail)}.s-u{background:var(--unparseable)}
.s-m{background:var(--missing)}.s-s{background:var(--stale)}.s-e{background:var(--error)}
.s-_{background:#eaeef2;color:#57606a}
.legend span{margin-right:12px}
.controls{display:flex;gap:10px;align-items:center;margin:8px 0;flex-wrap:wrap}
.controls input{padding:4px 8px;width:220px}
#cases{width:100%}#cases tr.row{cursor:pointer}#cases tr.row td:first-child{white-space:nowrap}#cases tr.row:hover{background:#f3f6fa}
#cases tr.row td:first-child::before{content:"\\25B8  ";color:var(--muted)}
#cases tr.row.open td:first-child::before{content:"\\25BE  "}
#cases tr.detail>td{background:#fbfcfd;padding:12px}
.model-block{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:0 0 10px;background:#fff}
.model-block h4{margin:0 0 6px;font-size:14px}
.viol{margin:4px 0;padding-left:18px}.viol li{color:var(--fail)}.viol li.warning{color:var(--warn)}
.gone{text-decoration:line-through;color:var(--muted)}
.arg{display:inline-block;margin:0 6px 2px 0;padding:0 3px;border-radius:3px}
.bad-arg{background:#ffebe9;outline:1px solid var(--fail)}.warn-arg{background:#fff8c5;outline:1px solid var(--warn)}
.note{color:var(--muted);font-style:italic}
pre.text{white-space:pre-wrap;word-break:break-word;max-height:320px;overflow:auto;background:var(--bg2);
border:1px solid var(--line);border-radius:4px;padding:6px 8px;font-size:12px;margin:4px 0}
details>summary{cursor:pointer;color:#0969da;margin:4px 0}
.pager button{margin:0 2px}
code{background:var(--bg2);padding:0 3px;border-radius:3px}
svg text{font-family:inherit}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.side>div{min-width:0;border:1px solid var(--line);border-radius:6px;padding:8px;background:#fff}
.diff li.add{background:var(--add)}.diff li.del{background:var(--del)}.diff li.chg{background:var(--chg)}
.diff{padding-left:18px;margin:4px 0}
.flip{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:10px 0}
.up{color:var(--pass)}.down{color:var(--fail)}
.viol li,.diff li,.note{overflow-wrap:anywhere}
.graph-box{width:100%;max-width:100%}.graph-box svg{display:block}
.model-block .graph-box{width:calc(100vw - 160px)}
.graph-box.zoomable svg{border:1px solid var(--line);border-radius:4px;cursor:grab;touch-action:none}
.graph-box svg.dragging{cursor:grabbing}
.graph-tools{display:flex;gap:4px;align-items:center;margin:4px 0;flex-wrap:wrap}.graph-tools button{min-width:32px}
.bars{margin:8px 0;max-width:1000px}
.bar-row{display:grid;grid-template-columns:minmax(0,220px) minmax(0,560px) minmax(0,auto);grid-template-areas:"label track value";gap:2px 10px;align-items:center;font-size:12px;margin:4px 0}
.bar-label{grid-area:label;text-align:right;overflow-wrap:anywhere}.bar-value{grid-area:value;white-space:nowrap}
.bar-track{grid-area:track;position:relative;height:18px;background:repeating-linear-gradient(90deg,var(--line) 0 1px,transparent 1px 20%)}
.bar{position:absolute;left:0;top:2px;bottom:2px;background:#54aeff;border-radius:2px}
.whisker{position:absolute;top:3px;height:12px;border-left:1.5px solid #1f2328;border-right:1.5px solid #1f2328;
background:linear-gradient(#1f2328,#1f2328) center/100% 1.5px no-repeat}
.bar-axis .bar-track{background:none;height:14px}.bar-axis span{position:absolute;transform:translateX(-50%);font-size:11px;color:var(--muted)}
.bar-axis span:first-child{transform:none}.bar-axis span:last-child{transform:translateX(-100%)}
@media (max-width:600px){
body{padding:10px}h1{font-size:19px}h1,h2,.meta,.headline,.verdict,.warn,p{overflow-wrap:anywhere}
.controls input{width:100%}
#cases tr.detail>td{padding:6px}
#cases tr.detail .model-block{position:sticky;left:0;padding:6px 8px;max-width:calc(100vw - 36px)}
.model-block .scroll{max-width:calc(100vw - 58px)}.model-block .graph-box{width:calc(100vw - 58px)}
.bar-row{grid-template-columns:minmax(0,auto) minmax(0,1fr);grid-template-areas:"label value" "track track"}
.bar-label{text-align:left}.bar-value{white-space:normal;text-align:right;overflow-wrap:anywhere}
.side{grid-template-columns:minmax(0,1fr)}
table#verdicts,table#verdicts tbody,table#verdicts tr,table#verdicts td{display:block}
table#verdicts tr:first-child{display:none}
table#verdicts tr{display:flex;flex-direction:column;border:1px solid var(--line);border-radius:6px;margin:0 0 8px;padding:4px 0}
table#verdicts td{border:0;padding:1px 10px;text-align:left;white-space:normal}
table#verdicts td[data-label]::before{content:attr(data-label) ": ";color:var(--muted)}
table#verdicts td:first-child{order:-2;font-weight:600}table#verdicts td.verdict-cell{order:-1;font-size:15px}
}
"""

GRAPH_JS = r"""
const GRAPH={W:150,H:34,GX:16,GY:40,WRAP_GY:18,DW:12,PAD:8,ZOOM_OVER:30,MAX_TASKS:80};
/* The layered (Sugiyama) layout of a plan's dependency graph, top to bottom, at most `width` px wide.
 1. cycles: a depth-first search in task order; an edge to a task still on the stack is a back edge (a feedback-arc set),
    left out of the layering and drawn against it; 2. layers: longest path from the roots over the other edges;
 3. an edge over several layers gets one dummy point per layer crossed; 4. order in each layer: barycenter sweeps
    (down, then up), keeping the order with the fewest crossings; 5. a layer wider than `width` wraps onto more rows;
 6. x: each row packed in order, then pulled towards its neighbours' centres (down, up, down) without overlap, and
    the drawing moved to the left of its box. */
function graphLayout(plan,width){
 const tasks=(plan&&plan.tasks)||[];const n=tasks.length;const ids=tasks.map(t=>String(t.id));const idx=new Map(ids.map((x,i)=>[x,i]));
 const edges=[];const missing=[];
 tasks.forEach((t,i)=>{const deps=(t.depends_on||[]).map(String);deps.forEach(d=>{if(idx.has(d))edges.push({from:idx.get(d),to:i,kind:'dep'});else missing.push([d,i]);});
  const nd=t.needs;const origins=Array.isArray(nd)?nd.map(x=>x&&typeof x==='object'?String(x.task):null):(nd&&typeof nd==='object'?Object.values(nd).map(String):[]);
  origins.forEach(d=>{if(d!==null&&idx.has(d)&&!deps.includes(d))edges.push({from:idx.get(d),to:i,kind:'need'});});});
 const out=tasks.map(()=>[]);edges.forEach((e,k)=>out[e.from].push(k));
 const state=new Array(n).fill(0);
 for(let s=0;s<n;s++){if(state[s])continue;const stack=[[s,0]];state[s]=1;
  while(stack.length){const top=stack[stack.length-1];const [v,p]=top;
   if(p<out[v].length){top[1]++;const e=edges[out[v][p]];const w=e.to;
    if(state[w]===1)e.back=true;else if(state[w]===0){state[w]=1;stack.push([w,0]);}}
   else{state[v]=2;stack.pop();}}}
 const fwd=edges.filter(e=>!e.back);const indeg=new Array(n).fill(0);const succ=tasks.map(()=>[]);
 fwd.forEach(e=>{indeg[e.to]++;succ[e.from].push(e.to);});
 const layer=new Array(n).fill(0);const queue=[];indeg.forEach((d,i)=>{if(!d)queue.push(i);});
 for(let q=0;q<queue.length;q++){const v=queue[q];succ[v].forEach(w=>{layer[w]=Math.max(layer[w],layer[v]+1);if(!--indeg[w])queue.push(w);});}
 const nl=n?Math.max(...layer)+1:0;
 const vx=tasks.map((_,i)=>({i,layer:layer[i],w:0,up:[],down:[]}));
 fwd.forEach(e=>{let a=e.from;e.via=[];for(let l=layer[e.from]+1;l<layer[e.to];l++){const d=vx.length;vx.push({i:-1,layer:l,w:0,up:[],down:[]});
   vx[a].down.push(d);vx[d].up.push(a);e.via.push(d);a=d;}vx[a].down.push(e.to);vx[e.to].up.push(a);});
 const layers=Array.from({length:nl},()=>[]);vx.forEach((v,k)=>layers[v.layer].push(k));
 const pos=new Array(vx.length);const setPos=()=>layers.forEach(L=>L.forEach((k,r)=>{pos[k]=r;}));setPos();
 const crossings=()=>{let c=0;for(let l=0;l+1<nl;l++){const seg=[];layers[l].forEach(k=>vx[k].down.forEach(d=>seg.push([pos[k],pos[d]])));
  for(let a=0;a<seg.length;a++)for(let b=a+1;b<seg.length;b++)if((seg[a][0]-seg[b][0])*(seg[a][1]-seg[b][1])<0)c++;}return c;};
 const sweep=(l,nb)=>{const bc=new Map(layers[l].map(k=>{const ns=vx[k][nb];return [k,ns.length?ns.reduce((s,x)=>s+pos[x],0)/ns.length:pos[k]];}));
  layers[l].sort((a,b)=>bc.get(a)-bc.get(b)||pos[a]-pos[b]);layers[l].forEach((k,r)=>{pos[k]=r;});};
 let best=crossings();let bestOrder=layers.map(L=>L.slice());
 for(let it=0;it<8&&best>0;it++){if(it%2===0)for(let l=1;l<nl;l++)sweep(l,'up');else for(let l=nl-2;l>=0;l--)sweep(l,'down');
  const c=crossings();if(c<best){best=c;bestOrder=layers.map(L=>L.slice());}}
 bestOrder.forEach((L,l)=>{layers[l]=L;});setPos();
 const avail=Math.max(120,width-2*GRAPH.PAD);let W=GRAPH.W;/* narrow the task boxes (down to 88 px) before a layer has to wrap */
 layers.forEach(L=>{const r=L.filter(k=>vx[k].i>=0).length;if(r)W=Math.min(W,Math.floor((avail-(L.length-r)*GRAPH.DW-(L.length-1)*GRAPH.GX)/r));});
 W=Math.max(88,Math.min(GRAPH.W,W));
 vx.forEach(v=>{v.w=v.i>=0?W:GRAPH.DW;});
 const backs=edges.filter(e=>e.back);const TOP=backs.length?30:8;const rows=[];
 layers.forEach((L,l)=>{let row=[];let used=0;const push=()=>{row.layer=l;rows.push(row);};
  L.forEach(k=>{const w=vx[k].w;if(row.length&&used+GRAPH.GX+w>avail){push();row=[];used=0;}used+=(row.length?GRAPH.GX:0)+w;row.push(k);});if(row.length)push();});
 const x=new Array(vx.length);const y=new Array(vx.length);let rowY=TOP;/* the rows of one wrapped layer sit closer than layers */
 rows.forEach((row,r)=>{if(r)rowY+=GRAPH.H+(row.layer===rows[r-1].layer?GRAPH.WRAP_GY:GRAPH.GY);
  const tot=row.reduce((s,k)=>s+vx[k].w,0)+GRAPH.GX*(row.length-1);let at=GRAPH.PAD+(avail-tot)/2;
  row.forEach(k=>{x[k]=at;y[k]=rowY;at+=vx[k].w+GRAPH.GX;});});
 const cx=k=>x[k]+vx[k].w/2;
 const pull=(row,nb)=>{const want=row.map(k=>{let ns=vx[k][nb];const real=ns.filter(z=>vx[z].i>=0);if(vx[k].i>=0&&real.length)ns=real;/* a task follows its tasks, not the edges passing by */
  return ns.length?ns.reduce((s,z)=>s+cx(z),0)/ns.length-vx[k].w/2:x[k];});
  for(let a=0;a<row.length;a++){const lo=a?x[row[a-1]]+vx[row[a-1]].w+GRAPH.GX:GRAPH.PAD;x[row[a]]=Math.max(lo,want[a]);}
  for(let a=row.length-1;a>=0;a--){const hi=a+1<row.length?x[row[a+1]]-GRAPH.GX-vx[row[a]].w:GRAPH.PAD+avail-vx[row[a]].w;x[row[a]]=Math.min(x[row[a]],hi);}};
 for(let r=1;r<rows.length;r++)pull(rows[r],'up');for(let r=rows.length-2;r>=0;r--)pull(rows[r],'down');for(let r=1;r<rows.length;r++)pull(rows[r],'up');
 const left=Math.min(...x.filter(v=>v!==undefined));for(let k=0;k<x.length;k++)x[k]+=GRAPH.PAD-left;/* the drawing starts at the left of its box */
 const H=GRAPH.H;const nodes=tasks.map((t,i)=>({id:ids[i],task:t,x:x[i],y:y[i],w:W,h:H}));
 const drawn=fwd.map(e=>{const pts=[[cx(e.from),y[e.from]+H]];e.via.forEach(d=>{pts.push([cx(d),y[d]]);pts.push([cx(d),y[d]+H]);});pts.push([cx(e.to),y[e.to]]);
  let d='M'+pts[0][0].toFixed(1)+','+pts[0][1];for(let p=1;p<pts.length;p++){const [ax,ay]=pts[p-1],[bx,by]=pts[p];
   if(p%2===0&&e.via.length&&p<pts.length-1){d+=' L'+bx.toFixed(1)+','+by;continue;}const dy=Math.max(12,(by-ay)/2);
   d+=' C'+ax.toFixed(1)+','+(ay+dy)+' '+bx.toFixed(1)+','+(by-dy)+' '+bx.toFixed(1)+','+by;}
  return {from:e.from,to:e.to,kind:e.kind,back:false,d};});
 const right=GRAPH.PAD+avail;
 backs.forEach(e=>{const a=nodes[e.from],b=nodes[e.to];let d;
  if(e.from===e.to){/* a task depending on itself: a loop over its top right corner */
   d=`M${a.x+W-44},${a.y} C${a.x+W-48},${a.y-26} ${a.x+W-8},${a.y-26} ${a.x+W-12},${a.y}`;}
  else{const side=Math.max(a.x,b.x)+W+40<=right+GRAPH.PAD?1:(Math.min(a.x,b.x)-40>=0?-1:1);
   const sx=side>0?a.x+W:a.x,tx=side>0?b.x+W:b.x;const bend=side*(28+Math.min(60,Math.abs(a.y-b.y)/6));
   const ex=side>0?Math.max(sx,tx):Math.min(sx,tx);
   d=`M${sx},${a.y+H/2} C${ex+bend},${a.y+H/2} ${ex+bend},${b.y+H/2} ${tx+side*2},${b.y+H/2}`;}
  drawn.push({from:e.from,to:e.to,kind:e.kind,back:true,d});});
 const w=Math.max(...nodes.map(v=>v.x+W),0)+GRAPH.PAD;const h=rowY+H+10;
 return {nodes,edges:drawn,missing,backs:backs.length,crossings:best,w:Math.max(w,right+GRAPH.PAD),h,W};}
function planGraph(plan,marks){/* marks: {bad, warn, del, add, chg: Sets of task ids; badEdges, addEdges, delEdges: Sets of 'from>to'} */
 marks=marks||{};const tasks=(plan&&plan.tasks)||[];if(!tasks.length||tasks.length>GRAPH.MAX_TASKS)return null;
 const box=document.createElement('div');box.className='graph-box';const zoom=tasks.length>GRAPH.ZOOM_OVER;
 if(zoom){box.classList.add('zoomable');const bar=document.createElement('div');bar.className='graph-tools';
  [['zoom-in','+','zoom in'],['zoom-out','\u2212','zoom out'],['fit','fit','show the whole graph'],['actual','1:1','actual size']].forEach(([k,t,title])=>{
   const b=document.createElement('button');b.type='button';b.setAttribute('data-zoom',k);b.title=title;b.textContent=t;b.onclick=ev=>{ev.stopPropagation();const s=box.querySelector('svg');if(s&&s.planZoom)s.planZoom(k);};bar.appendChild(b);});
  const hint=document.createElement('span');hint.className='meta';hint.textContent=' drag to pan, Ctrl + wheel to zoom';bar.appendChild(hint);box.appendChild(bar);}
 let drawnAt=0;const draw=()=>{const width=box.clientWidth||Math.max(320,window.innerWidth-160);if(Math.abs(width-drawnAt)<1)return;drawnAt=width;
  const old=box.querySelector('svg');if(old)old.remove();box.appendChild(drawPlanSvg(plan,marks,graphLayout(plan,width),zoom));};
 draw();if(window.ResizeObserver)new ResizeObserver(draw).observe(box);
 return box;}
function drawPlanSvg(plan,marks,lay,zoom){const S=k=>marks[k]||new Set();const NS='http://www.w3.org/2000/svg';
 const mkEl=(t,a)=>{const e=document.createElementNS(NS,t);for(const k in a)e.setAttribute(k,a[k]);return e;};
 const svg=mkEl('svg',{class:'plan-graph',role:'img','aria-label':'dependency graph','data-tasks':String(lay.nodes.length),'data-crossings':String(lay.crossings)});
 const viewH=zoom?Math.min(lay.h,Math.max(320,Math.round(window.innerHeight*0.7))):lay.h;
 svg.setAttribute('width',lay.w);svg.setAttribute('height',viewH);svg.setAttribute('viewBox',`0 0 ${lay.w} ${viewH}`);
 const uid='m'+Math.random().toString(36).slice(2,8);
 const mk=(id,c)=>'<marker id="'+uid+id+'" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L10,5L0,10z" fill="'+c+'"/></marker>';
 const defs=mkEl('defs',{});defs.innerHTML=mk('n','#8c959f')+mk('r','#cf222e')+mk('g','#1a7f37');svg.appendChild(defs);
 const ids=lay.nodes.map(v=>v.id);
 if(lay.backs){const g=mkEl('g',{class:'graph-legend'});g.appendChild(mkEl('path',{d:'M8,12 h28',stroke:'#cf222e','stroke-width':'2','stroke-dasharray':'5 3',fill:'none'}));
  const t=mkEl('text',{x:42,y:16,'font-size':'12',fill:'#57606a'});t.textContent='back edge: closes a cycle';const ti=mkEl('title',{});ti.textContent='an edge drawn against the top-down order: the dependency that closes a cycle';g.appendChild(ti);g.appendChild(t);svg.appendChild(g);}
 lay.edges.forEach(e=>{const key=ids[e.from]+'>'+ids[e.to];
  const bad=e.back||S('badEdges').has(key)||S('delEdges').has(key);const added=S('addEdges').has(key);
  const cls=[S('delEdges').has(key)?'removed-edge':(bad?'bad-edge':(added?'added-edge':'')),e.back?'back-edge':''].filter(Boolean).join(' ');
  const p=mkEl('path',{d:e.d,fill:'none',stroke:bad?'#cf222e':(added?'#1a7f37':'#8c959f'),'stroke-width':bad||added?'2':'1.2','data-edge':key,
   'marker-end':'url(#'+uid+(bad?'r':(added?'g':'n'))+')'});
  if(cls)p.setAttribute('class',cls);if(e.back)p.setAttribute('stroke-dasharray','5 3');else if(e.kind==='need')p.setAttribute('stroke-dasharray','4 3');
  const ti=mkEl('title',{});ti.textContent=(e.back?'back edge of a cycle: ':'')+ids[e.from]+' \u2192 '+ids[e.to]+(e.kind==='need'?' (needs)':'');p.appendChild(ti);svg.appendChild(p);});
 const chars=Math.max(6,Math.floor((lay.W-14)/7));
 lay.nodes.forEach(v=>{const id=v.id;const t=v.task;let fill='#ddf4ff',stroke='#54aeff',cls='task';
  if(S('del').has(id)){fill='#ffebe9';stroke='#cf222e';cls='task removed-task';}
  else if(S('bad').has(id)){fill='#ffebe9';stroke='#cf222e';cls='task bad-task';}else if(S('warn').has(id)){fill='#fff8c5';stroke='#9a6700';cls='task warn-task';}
  else if(S('add').has(id)){fill='#dafbe1';stroke='#1a7f37';cls='task added-task';}else if(S('chg').has(id)){fill='#fff8c5';stroke='#9a6700';cls='task changed-task';}
  const g=mkEl('g',{class:cls,'data-task':id});g.appendChild(mkEl('rect',{x:v.x,y:v.y,width:v.w,height:v.h,rx:5,fill,stroke}));
  const ti=mkEl('title',{});ti.textContent=id+(t.description?': '+t.description:'');g.appendChild(ti);
  const tx=mkEl('text',{x:v.x+7,y:v.y+21,'font-size':'12'});tx.textContent=id.length>chars?id.slice(0,Math.ceil((chars-1)/2))+'\u2026'+id.slice(id.length-Math.floor((chars-1)/2)):id;g.appendChild(tx);svg.appendChild(g);});
 if(zoom)panZoom(svg,lay,viewH);
 return svg;}
function panZoom(svg,lay,viewH){let vb=[0,0,lay.w,viewH];
 const set=()=>svg.setAttribute('viewBox',vb.map(x=>x.toFixed(1)).join(' '));
 const zoomBy=(f,cx,cy)=>{const nw=Math.min(Math.max(lay.w,lay.h)*4,Math.max(40,vb[2]/f));const k=nw/vb[2];cx=cx===undefined?vb[0]+vb[2]/2:cx;cy=cy===undefined?vb[1]+vb[3]/2:cy;
  vb=[cx-(cx-vb[0])*k,cy-(cy-vb[1])*k,vb[2]*k,vb[3]*k];set();};
 const fit=()=>{const k=Math.max(1,lay.h/viewH);vb=[0,0,lay.w*k,viewH*k];set();};
 const actual=()=>{vb=[0,0,lay.w,viewH];set();};
 svg.planZoom=z=>{if(z==='zoom-in')zoomBy(1.25);else if(z==='zoom-out')zoomBy(0.8);else if(z==='fit')fit();else actual();};
 const toUser=ev=>{const r=svg.getBoundingClientRect();return [vb[0]+(ev.clientX-r.left)*vb[2]/r.width,vb[1]+(ev.clientY-r.top)*vb[3]/r.height];};
 svg.addEventListener('wheel',ev=>{if(!ev.ctrlKey)return;ev.preventDefault();const [cx,cy]=toUser(ev);zoomBy(ev.deltaY<0?1.15:1/1.15,cx,cy);},{passive:false});
 let drag=null;svg.addEventListener('pointerdown',ev=>{drag=[ev.clientX,ev.clientY,vb[0],vb[1]];svg.setPointerCapture(ev.pointerId);svg.classList.add('dragging');});
 svg.addEventListener('pointermove',ev=>{if(!drag)return;const r=svg.getBoundingClientRect();vb[0]=drag[2]-(ev.clientX-drag[0])*vb[2]/r.width;vb[1]=drag[3]-(ev.clientY-drag[1])*vb[3]/r.height;set();});
 const end=()=>{drag=null;svg.classList.remove('dragging');};svg.addEventListener('pointerup',end);svg.addEventListener('pointercancel',end);}
function violationMarks(plan,viol){const bad=new Set(),warn=new Set(),badEdges=new Set();const tasks=(plan&&plan.tasks)||[];
 (viol||[]).forEach(v=>{const w=v.severity==='warning';if(v.task!==undefined&&v.task!==null)(w?warn:bad).add(String(v.task));
  const m=/^\/tasks\/(\d+)\/(depends_on|needs)\/([^/]+)/.exec(v.path||'');if(m&&!w){const t=tasks[+m[1]];if(!t)return;
   let from=null;if(m[2]==='depends_on'){from=(t.depends_on||[])[+m[3]];}else{const n=t.needs;const x=Array.isArray(n)?n[+m[3]]:(n||{})[m[3]];from=x&&typeof x==='object'?x.task:x;}
   if(from!==undefined&&from!==null)badEdges.add(String(from)+'>'+String(t.id));}});
 return {bad,warn,badEdges};}
"""

JS = r"""
(function(){
/* The case table. Its data comes in parts of D.per cases (worst first), each a script calling planevalReport.cases(k,[...])
 (and .detail(k,{...}) for the detail of its cases): in the page, or in files of the folder D.dir beside it, read with
 <script src> (which works from disk) when a page of the table, a filter or an opened case needs them. */
const D=JSON.parse(document.getElementById('case-index').textContent);const R=window.planevalReport;
const NAMES={p:'pass',f:'fail',u:'unparseable',m:'missing',s:'stale',e:'error',_:'no row'};
const LET={pass:'p',fail:'f',unparseable:'u',missing:'m',stale:'s',error:'e'};
const PAGE=50;let page=0;let rows=null;/* null: every case in the parts' order; else the numbers of the cases shown */
let pos=null;/* case id -> number, once every part is read */
const $=id=>document.getElementById(id);const tbody=document.querySelector('#cases tbody');
const el=(t,a,txt)=>{const e=document.createElement(t);if(a)for(const k in a)e.setAttribute(k,a[k]);if(txt!==undefined)e.textContent=txt;return e;};
const nat=new Intl.Collator(undefined,{numeric:true,sensitivity:'base'}).compare;
const store={cases:R.C,detail:R.X};const waiting={};
const partOf=g=>Math.floor(g/D.per);const caseAt=g=>R.C[partOf(g)][g%D.per];
const fileOf=(kind,k)=>D.dir+'/'+kind+'-'+String(k).padStart(4,'0')+'.js';
const every=()=>Array.from({length:D.parts},(_,k)=>k);
function unreadable(kind,k){const box=$('data-error');box.hidden=false;
 box.textContent='Could not read '+(D.dir?fileOf(kind,k):kind+' part '+k)+': the case table\u2019s data is in the folder '+D.dir+' next to this page; keep the two together (planeval report writes both), or run planeval report again.';}
function readPart(kind,k,done){const key=kind+k;if(waiting[key]){waiting[key].push(done);return;}waiting[key]=[done];
 const s=document.createElement('script');s.setAttribute('src',fileOf(kind,k));
 const end=()=>{const w=waiting[key];delete waiting[key];s.remove();if(store[kind][k])w.forEach(f=>f());else unreadable(kind,k);};
 s.onload=end;s.onerror=end;document.head.appendChild(s);}
/* then() once the parts ks of kind are read: at once when they are; progress(done, of) while reading */
function need(kind,ks,then,progress){const missing=ks.filter(k=>!store[kind][k]);if(!missing.length){then();return;}
 let left=missing.length;if(progress)progress(0,missing.length);
 missing.forEach(k=>readPart(kind,k,()=>{left--;if(progress)progress(missing.length-left,missing.length);if(!left)then();}));}
function chip(l,tag){return el(tag||'span',{class:'chip s-'+l,title:NAMES[l]},l==='_'?'·':l);}
function cell(str){const td=el('td');if(!str){td.appendChild(el('span',{class:'note'},'–'));return td;}
 let p=0,n=0;for(const c of str){if(c==='p'){p++;n++;}else if(c==='f'||c==='u')n++;}
 const tag=el('div');for(const c of str)tag.appendChild(chip(c));td.appendChild(tag);
 td.appendChild(el('div',{class:'meta'},n?p+'/'+n+' pass':'not counted'));return td;}
D.models.forEach((m,i)=>$('fmodel').appendChild(el('option',{value:String(i)},m)));
D.checks.map((c,i)=>[c,i]).sort((a,b)=>nat(a[0],b[0])).forEach(([c,i])=>$('fcheck').appendChild(el('option',{value:String(i)},c)));
D.tags.map((c,i)=>[c,i]).sort((a,b)=>nat(a[0],b[0])).forEach(([c,i])=>$('ftag').appendChild(el('option',{value:String(i)},c)));
const modelSel=()=>$('fmodel').value==='all'?null:+$('fmodel').value;
function shownModels(){const m=modelSel();return m===null?D.models.map((_,i)=>i):[m];}
function filtering(){return !!$('q').value||['fstatus','fcheck','fmodel','ftag'].some(x=>$(x).value!=='all')||$('sort').value!=='worst';}
function filtered(){const q=$('q').value.toLowerCase();const st=$('fstatus').value;const ck=$('fcheck').value;const tg=$('ftag').value;
 const ms=shownModels();const out=[];
 for(let g=0;g<D.n;g++){const c=caseAt(g);
  if(q&&!(c.id.toLowerCase().includes(q)||c.tags.map(t=>D.tags[t]).join(' ').toLowerCase().includes(q)))continue;
  if(tg!=='all'&&!c.tags.includes(+tg))continue;
  const ss=ms.map(m=>c.s[m]||'');const all=ss.join('');if(!all.replace(/_/g,''))continue;
  if(ck!=='all'&&!ms.some(m=>(c.x[m]||[]).includes(+ck)))continue;
  if(st==='flaky'&&!ss.some(s=>/p/.test(s)&&/[fu]/.test(s)))continue;
  if(st==='failing'&&!/[fu]/.test(all))continue;if(st==='allpass'&&/[fumse]/.test(all))continue;
  if(st in LET&&!all.includes(LET[st]))continue;out.push(g);}
 if($('sort').value==='id')out.sort((a,b)=>nat(caseAt(a).id,caseAt(b).id));return out;}
function setHash(c,m,k){const parts=['case='+encodeURIComponent(c.id)];if(m!==undefined&&m!==null){parts.push('model='+encodeURIComponent(D.models[m]));if(k!==undefined&&k!==null)parts.push('sample='+k);}
 history.replaceState(null,'','#'+parts.join('&'));}
function text(label,str,open){const d=el('details');if(open)d.open=true;d.appendChild(el('summary',null,label));d.appendChild(el('pre',{class:'text'},str));return d;}
function needsText(n){if(!n)return '';if(Array.isArray(n))return n.map(x=>typeof x==='object'&&x?(x.name+' ← '+x.task):String(x)).join(', ');
 return Object.entries(n).map(([k,v])=>k+' ← '+v).join(', ');}
function argText(a){if(a&&typeof a==='object'&&!Array.isArray(a)){const ks=Object.keys(a);
  if(ks.length===1&&ks[0]==='$result')return '\u2190 '+a.$result;
  if(ks.length===1&&ks[0]==='$concat'&&Array.isArray(a.$concat))return JSON.stringify(a.$concat.map(p=>p&&typeof p==='object'?'{\u2190 '+p.$result+'}':String(p)).join(''));}
 const s=JSON.stringify(a);return s===undefined?String(a):(s.length>80?s.slice(0,79)+'\u2026':s);}
function argsCell(x,i,viol){const td=el('td');const pre='/tasks/'+i+'/arguments';
 const vs=(viol||[]).filter(v=>v.path===pre||(v.path||'').startsWith(pre+'/'));const esc=k=>k.replace(/~/g,'~0').replace(/\//g,'~1');
 Object.entries(x.arguments||{}).forEach(([k,a])=>{const p=pre+'/'+esc(k);const mine=vs.filter(v=>v.path===p||v.path.startsWith(p+'/'));
  const cls='arg'+(mine.some(v=>v.severity!=='warning')?' bad-arg':(mine.length?' warn-arg':''));
  const sp=el('span',{class:cls,'data-arg':k},k+'='+argText(a));if(mine.length)sp.title=mine.map(v=>v.message).join('\n');td.appendChild(sp);});
 vs.filter(v=>v.path===pre).forEach(v=>td.appendChild(el('div',{class:v.severity==='warning'?'warn-arg':'bad-arg'},v.message)));
 return td;}
function sampleView(ci,m,k){const c=caseAt(ci);const dd=R.X[partOf(ci)]||{d:[],pr:[]};const at=ci%D.per;const letter=c.s[m][k];
 const v=el('div',{class:'sample-view','data-model':D.models[m],'data-sample':String(k)});
 v.appendChild(el('div',{class:'meta'},'sample '+k+': '+NAMES[letter]));
 const ref=dd.d[at]?dd.d[at][m][k]:0;const pr=dd.pr[at]!==undefined?dd.pr[at]:-1;
 if(pr>=0)v.appendChild(text('prompt (rendered template)',dd.t[pr],false));
 if(!ref){v.appendChild(el('div',{class:'note'},letter==='_'?'no row for this sample':'detail left out to keep this file small; see results.jsonl'));return v;}
 const [pk,vk,ak,dk]=ref;
 if(dk>=0)v.appendChild(el('div',{class:letter==='u'?'viol':'note'},(letter==='u'?'parse error: ':'')+dd.t[dk]));
 if(ak>=0)v.appendChild(text('raw answer',dd.t[ak],letter==='u'));
 else if('fup'.includes(letter))v.appendChild(el('div',{class:'note'},'the run did not store the raw answer (older run); see the recording'));
 const viol=vk>=0?dd.v[vk]:[];
 if(viol.length){const ul=el('ul',{class:'viol'});viol.forEach(x=>{const w=x.severity==='warning';ul.appendChild(el('li',{class:w?'warning':'error'},
  '['+x.check+(w?', warning':'')+'] '+(x.task?x.task+': ':'')+x.message+(x.path?'  ('+x.path+')':'')));});v.appendChild(ul);}
 if(pk>=0){const plan=dd.p[pk];const tasks=plan.tasks||[];const wrap=el('div',{class:'scroll'});
  const g=planGraph(plan,violationMarks(plan,viol));if(g)wrap.appendChild(g);else wrap.appendChild(el('div',{class:'note'},tasks.length?'graph not drawn for more than 80 tasks':'the plan has no tasks'));v.appendChild(wrap);
  const withArgs=tasks.some(x=>x.arguments&&typeof x.arguments==='object'&&Object.keys(x.arguments).length);
  const t=el('table');const hr=el('tr');['task','description','capabilities','depends on','needs'].concat(withArgs?['arguments']:[]).forEach(x=>hr.appendChild(el('th',null,x)));t.appendChild(hr);
  tasks.forEach((x,i)=>{const tr=el('tr');[x.id,x.description||'',(x.capabilities||[]).join(', '),(x.depends_on||[]).join(', '),needsText(x.needs)].forEach(y=>tr.appendChild(el('td',null,String(y))));
   if(withArgs)tr.appendChild(argsCell(x,i,viol));t.appendChild(tr);});
  const sc=el('div',{class:'scroll'});sc.appendChild(t);v.appendChild(sc);}
 return v;}
function worst(s){for(const l of 'fuesm'){const i=s.indexOf(l);if(i>=0)return i;}return s.indexOf('p')>=0?s.indexOf('p'):0;}
function detail(ci,want){const c=caseAt(ci);const box=el('div');
 shownModels().forEach(m=>{const s=c.s[m];if(!s)return;const b=el('div',{class:'model-block','data-model':D.models[m]});
  const h=el('h4');h.appendChild(el('code',null,D.models[m]));h.appendChild(document.createTextNode('  '));
  let k0=want&&want.model===m&&want.sample!==null&&want.sample<s.length?want.sample:worst(s);
  const slot=el('div');const btns=[];
  [...s].forEach((l,k)=>{const bt=chip(l,'button');bt.setAttribute('data-sample',String(k));bt.title='sample '+k+': '+NAMES[l];btns.push(bt);h.appendChild(bt);
   bt.addEventListener('click',ev=>{ev.stopPropagation();btns.forEach(x=>x.classList.remove('sel'));bt.classList.add('sel');slot.textContent='';slot.appendChild(sampleView(ci,m,k));setHash(c,m,k);});});
  b.appendChild(h);b.appendChild(slot);btns[k0].classList.add('sel');slot.appendChild(sampleView(ci,m,k0));box.appendChild(b);});
 return box;}
function open(tr,ci,want,then){const k=partOf(ci);
 const go=()=>{if(!tr.isConnected||tr.classList.contains('open'))return;const d=el('tr',{class:'detail'});const td=el('td',{colspan:2+shownModels().length});
  td.appendChild(detail(ci,want));d.appendChild(td);tr.after(d);tr.classList.add('open');if(then)then(d);};
 if(k>=D.detail_parts)go();else need('detail',[k],go);}
let drawing=0;
function render(){const my=++drawing;const start=page*PAGE;const count=rows?rows.length:D.n;const end=Math.min(count,start+PAGE);
 const gs=[];for(let i=start;i<end;i++)gs.push(rows?rows[i]:i);
 need('cases',[...new Set(gs.map(partOf))],()=>{if(my===drawing)draw(start,gs,count);},()=>{$('pageinfo').textContent='reading cases\u2026';});}
function draw(start,gs,count){tbody.textContent='';const ms=shownModels();
 const hr=document.querySelector('#cases thead tr');hr.textContent='';['case','tags'].forEach(x=>hr.appendChild(el('th',null,x)));
 ms.forEach(m=>{const th=el('th');th.appendChild(el('code',null,D.models[m]));hr.appendChild(th);});
 gs.forEach(ci=>{const c=caseAt(ci);
 const tr=el('tr',{class:'row','data-case':c.id});tr.appendChild(el('td',null,c.id));tr.appendChild(el('td',null,c.tags.map(t=>D.tags[t]).join(', ')));
 ms.forEach(m=>tr.appendChild(cell(c.s[m])));tbody.appendChild(tr);
 tr.addEventListener('click',()=>{const nx=tr.nextSibling;if(nx&&nx.classList&&nx.classList.contains('detail')){nx.remove();tr.classList.remove('open');return;}
  open(tr,ci,null);setHash(c);});});
 const pages=Math.max(1,Math.ceil(count/PAGE));
 $('pageinfo').textContent='cases '+(count?start+1:0)+'–'+Math.min(count,start+PAGE)+' of '+count+' (page '+(page+1)+' of '+pages+')';
 $('prev').disabled=page===0;$('next').disabled=page>=pages-1;}
$('prev').onclick=()=>{page--;render();};$('next').onclick=()=>{page++;render();};
let asked=0;/* the latest filter: an earlier one still reading the parts is dropped */
function upd(){const my=++asked;page=0;if(!filtering()){rows=null;render();return;}
 need('cases',every(),()=>{if(my!==asked)return;rows=filtered();render();},(n,of)=>{if(my===asked)$('pageinfo').textContent='reading the case list to filter: '+n+' of '+of+' files';});}
$('q').oninput=upd;['fstatus','fcheck','fmodel','ftag','sort'].forEach(id=>$(id).onchange=upd);
function find(id,then){/* the case's number: in the parts read already, else after reading them all */
 if(!pos)for(const k in R.C){const i=R.C[k].findIndex(c=>c.id===id);if(i>=0){then(+k*D.per+i);return;}}
 need('cases',every(),()=>{if(!pos){pos=new Map();for(let g=0;g<D.n;g++)pos.set(caseAt(g).id,g);}if(pos.has(id))then(pos.get(id));});}
function fromHash(){const h=location.hash.slice(1);if(!h)return;const p=new URLSearchParams(h);const id=p.get('case');if(id===null)return;
 find(id,g=>{let i=rows?rows.indexOf(g):g;
  if(i<0){$('q').value='';['fstatus','fcheck','fmodel','ftag'].forEach(x=>$(x).value='all');rows=filtering()?filtered():null;i=rows?rows.indexOf(g):g;}
  page=Math.floor(i/PAGE);render();const tr=[...tbody.querySelectorAll('tr.row')].find(r=>r.getAttribute('data-case')===id);if(!tr)return;
  const mi=p.get('model')!==null?D.models.indexOf(p.get('model')):-1;const k=p.get('sample')!==null?parseInt(p.get('sample'),10):null;
  open(tr,g,mi>=0?{model:mi,sample:Number.isInteger(k)?k:null}:null,d=>{
   const target=mi>=0?d.querySelector('.model-block[data-model="'+CSS.escape(D.models[mi])+'"]'):tr;(target||tr).scrollIntoView({block:'start'});});});}
render();fromHash();window.addEventListener('hashchange',()=>{document.querySelectorAll('tr.detail').forEach(x=>x.remove());document.querySelectorAll('tr.row.open').forEach(x=>x.classList.remove('open'));fromHash();});
})();
"""

COMPARE_JS = r"""
(function(){
const F=JSON.parse(document.getElementById('flip-data').textContent);
const set=a=>new Set(a||[]);const edgeKeys=a=>new Set((a||[]).map(e=>e[0]+'>'+e[1]));
function draw(det){if(det.getAttribute('data-drawn'))return;det.setAttribute('data-drawn','1');const f=F[+det.getAttribute('data-flip')];
 [['base',f.base,{...violationMarks(f.base,f.bv),del:set(f.diff.removed),delEdges:edgeKeys(f.diff.edges_removed)}],
  ['cand',f.cand,{...violationMarks(f.cand,f.cv),add:set(f.diff.added),chg:set(f.diff.changed.map(x=>x.cand)),addEdges:edgeKeys(f.diff.edges_added)}]].forEach(([side,plan,marks])=>{
  const box=det.querySelector('.graph-'+side);const g=plan?planGraph(plan,marks):null;
  if(g)box.appendChild(g);else{const n=document.createElement('div');n.className='note';n.textContent=plan?'graph not drawn (no tasks, or more than 80)':'no plan (the answer did not parse or no sample counted)';box.appendChild(n);}});}
document.querySelectorAll('details.flip').forEach(d=>{d.addEventListener('toggle',()=>{if(d.open){draw(d);history.replaceState(null,'','#flip='+encodeURIComponent(d.getAttribute('data-key')));}});});
const h=new URLSearchParams(location.hash.slice(1)).get('flip');
if(h!==null){const d=[...document.querySelectorAll('details.flip')].find(x=>x.getAttribute('data-key')===h);if(d){d.open=true;draw(d);d.scrollIntoView({block:'start'});}}
})();
"""
