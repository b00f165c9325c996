// Command kubelet is a fake kubelet for ONE Node of the kubectl-etcd test
// bed: it serves only the kubelet API's port-forward endpoint
// (/portForward/{namespace}/{pod}) over HTTPS, so that the real
// kube-apiserver's `pods/{name}/portforward` reaches it, and connects every
// forwarded stream to a TCP address on loopback chosen by a mapping table.
// There is no container runtime, no Pod sync, no Node registration: the test
// harness creates the Node and the Pods itself.
//
// # Transports
//
// kube-apiserver v1.34 reaches /portForward/{ns}/{pod} on the kubelet in two
// shapes, and both are served:
//
//   - SPDY/3.1 (X-Stream-Protocol-Version: portforward.k8s.io), as kubectl and
//     client-go send it, and also for a client that asks the API server for a
//     websocket with the tunneling subprotocol "SPDY/3.1+portforward.k8s.io"
//     (feature gate PortForwardWebsockets, on by default since 1.31): the API
//     server then unwraps the tunnel and speaks plain SPDY to the kubelet.
//     Served by github.com/virtual-kubelet/virtual-kubelet v1.14.1,
//     node/api.HandlePortForward (one data/error stream pair per forwarded
//     connection; the `port` header of each stream names the Pod port).
//   - Websocket with the channel subprotocols "v4.channel.k8s.io",
//     "v4.base64.channel.k8s.io" or none, ports in `?port=A,B` (kube-rs's
//     Api::portforward, which the plugin uses; the API server passes this
//     upgrade through to the kubelet untouched). Channel 2i is the data
//     channel and 2i+1 the error channel of the i-th port, each starting with
//     the port as a little-endian uint16, as the real kubelet does. This path
//     is written here (on k8s.io/apimachinery's wsstream) because
//     virtual-kubelet v1.14.1's HandlePortForward hands its websocket branch
//     an empty port list (`&portforward.V4Options{}`), so through it a
//     websocket port-forward opens and closes without forwarding anything.
//
// A forward that fails (no mapping, refused, dial error, cut) writes its
// message to the stream's error stream/channel, which clients surface as
// "error forwarding port P to pod NAME, uid : MESSAGE", and closes the data
// stream, as the real kubelet does.
//
// # Flags
//
//	--listen ADDR                 where to serve HTTPS (default 127.0.0.1:10250;
//	                              port 0 picks a free port, see the ready line)
//	--tls-cert-file FILE          serving certificate (PEM); its SANs must name
//	                              the address the API server dials (IP 127.0.0.1)
//	--tls-private-key-file FILE   its key (PEM)
//	--client-ca-file FILE         CA bundle (PEM) that client certificates must
//	                              chain to; a verified client certificate is
//	                              required and is all that is checked (no
//	                              webhook authn/authz)
//	--map NS/POD:PORT=TARGET      a static mapping entry; repeatable
//	--map-file FILE               the mapping file (see below); may be absent at
//	                              start and created later
//	--poll-interval DUR           how often the mapping file is re-read to cut
//	                              streams whose entry went away (default 50ms)
//	--dial-timeout DUR            timeout of the TCP dial to a target (default 5s)
//	--stream-idle-timeout DUR     a forward connection with no traffic for this
//	                              long is closed (default 4h, the kubelet's)
//	--stream-creation-timeout DUR SPDY: how long the data/error streams of one
//	                              forward may take to arrive (default 30s)
//
// Once listening it prints `kubelet ready on 127.0.0.1:PORT` to stderr (the
// actual address, so --listen 127.0.0.1:0 works). It logs one line per
// forwarded stream (opened / closed / cut) to stderr. SIGTERM or SIGINT:
// stop listening, cut every live stream, exit 0.
//
// # Mapping
//
// The table is the --map entries overlaid by the mapping file's lines (a file
// line wins over a --map entry for the same Pod and port). The file is re-read
// for every new stream, so a test may add, change or remove lines at any time;
// write it atomically (write a temporary file in the same directory, rename it
// over), since a half-written file is read as it stands. A missing file is an
// empty one; an unreadable one keeps the last table. Lines:
//
//	# comment; blank lines are ignored
//	NAMESPACE/POD PORT TARGET
//
// where PORT is the Pod port the client forwards (e.g. 2379) and TARGET is
//
//	HOST:PORT  dial this TCP address (e.g. 127.0.0.1:40123) and copy bytes
//	           both ways; half-closes are passed on (SPDY)
//	refuse     fail every new stream at once with a "connection refused" error,
//	           as when nothing listens on that port in the Pod
//	hang       accept the stream and never answer: bytes sent are discarded,
//	           nothing comes back, until the client gives up or it is cut
//
// A malformed line is logged and skipped. A Pod/port without an entry fails
// with "fake-kubelet: no mapping for NAMESPACE/POD port PORT".
//
// # Breaking forwards mid-flight
//
//   - Every --poll-interval the table is re-read; a live stream whose entry
//     was removed, or whose TARGET changed (to another address, `refuse` or
//     `hang`), is cut: its target connection is closed and the error
//     "fake-kubelet: forward of NS/POD port P to TARGET cut: REASON" is sent
//     on the error stream before the data stream closes. So removing a line,
//     or rewriting it to `refuse`, cuts that Pod port's live streams within
//     about 50 ms and refuses new ones.
//   - SIGUSR1 cuts every live stream the same way (error + close).
//   - SIGUSR2 closes every live stream quietly: the target connection is
//     closed and the client sees a plain end of stream, no error, as when the
//     server in the Pod closes the connection.
//
// Cutting does not change the table: new streams are accepted again at once
// unless the entry says otherwise. Clients differ on an error message: kube-rs
// hands it to that one forward (Portforwarder::take_error(port); its data
// stream ends), while kubectl port-forward (v1.34) then
// exits with "error: lost connection to pod"; after a SIGUSR2 close it keeps
// forwarding new connections.
//
// # What the API server needs to route port-forward here
//
// From k8s.io/kubernetes v1.34.4, pkg/registry/core/pod/rest/subresources.go
// (PortForwardREST.Connect), pkg/registry/core/pod/strategy.go
// (PortForwardLocation) and pkg/kubelet/client/kubelet_client.go
// (NodeConnectionInfoGetter):
//
// kube-apiserver flags:
//
//	--kubelet-client-certificate=FILE  client certificate the API server shows
//	--kubelet-client-key=FILE          its key; the certificate must chain to
//	                                   this program's --client-ca-file (any CN)
//	--kubelet-certificate-authority=FILE  CA that signed this program's
//	                                   serving certificate; WITHOUT it the API
//	                                   server does not verify the kubelet's
//	                                   certificate at all (TLS Insecure)
//	--kubelet-preferred-address-types=InternalIP  recommended: the default
//	                                   order is Hostname, InternalDNS,
//	                                   InternalIP, ExternalDNS, ExternalIP, and
//	                                   the first type the Node lists wins
//
// No feature gate is needed (PortForwardWebsockets is on by default). The
// API server dials the kubelet as https://ADDRESS:PORT, so the serving
// certificate needs an IP SAN 127.0.0.1 when --kubelet-certificate-authority
// is given.
//
// The Node (name = the Pods' spec.nodeName). Nodes may carry status on
// create, so one POST /api/v1/nodes does it:
//
//		{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "NODE"},
//		 "status": {
//		   "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
//		   "daemonEndpoints": {"kubeletEndpoint": {"Port": PORT}}}}
//
//	  - status.addresses: an address of a preferred type; with the default
//	    order, do not also list a Hostname address that does not resolve.
//	  - status.daemonEndpoints.kubeletEndpoint.Port (JSON key capitalised
//	    "Port"): this program's port; 0 or absent means the default 10250.
//	  - No Ready condition, no lease, no capacity: the API server does not look
//	    at them for port-forward (nothing evicts Pods without a
//	    kube-controller-manager either).
//
// The Pod: spec.nodeName = NODE is all the API server checks ("pod X does not
// have a host assigned" otherwise). It does not look at status.phase, the
// container list or the container ports; kubectl port-forward (the CLI)
// refuses a Pod whose phase is not Running, kube-rs does not check. Pods
// created through the API start with phase Pending; set phase Running via
// the status subresource if a client checks it.
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/mux"
	vkapi "github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream/wsstream"
)

var logger = log.New(os.Stderr, "fake-kubelet: ", log.Ltime|log.Lmicroseconds)

// targetKind says what a mapping entry does with a stream.
type targetKind int

const (
	kindDial targetKind = iota
	kindRefuse
	kindHang
)

type target struct {
	kind targetKind
	addr string // for kindDial
}

func (t target) String() string {
	switch t.kind {
	case kindRefuse:
		return "refuse"
	case kindHang:
		return "hang"
	default:
		return t.addr
	}
}

func parseTarget(s string) (target, error) {
	switch s {
	case "refuse":
		return target{kind: kindRefuse}, nil
	case "hang":
		return target{kind: kindHang}, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return target{}, fmt.Errorf("target %q: want HOST:PORT, refuse or hang", s)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil || host == "" {
		return target{}, fmt.Errorf("target %q: want HOST:PORT, refuse or hang", s)
	}
	return target{kind: kindDial, addr: s}, nil
}

// entryKey names one forwarded Pod port: pod is "namespace/name".
type entryKey struct {
	pod  string
	port int32
}

func (k entryKey) String() string { return fmt.Sprintf("%s port %d", k.pod, k.port) }

func parsePod(s string) (string, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("pod %q: want NAMESPACE/POD", s)
	}
	return s, nil
}

func parsePort(s string) (int32, error) {
	p, err := strconv.ParseUint(s, 10, 16)
	if err != nil || p == 0 {
		return 0, fmt.Errorf("port %q: want 1-65535", s)
	}
	return int32(p), nil
}

// parseMapFlag parses a --map value NS/POD:PORT=TARGET.
func parseMapFlag(s string) (entryKey, target, error) {
	left, right, ok := strings.Cut(s, "=")
	if !ok {
		return entryKey{}, target{}, fmt.Errorf("--map %q: want NS/POD:PORT=TARGET", s)
	}
	i := strings.LastIndex(left, ":")
	if i < 0 {
		return entryKey{}, target{}, fmt.Errorf("--map %q: want NS/POD:PORT=TARGET", s)
	}
	pod, err := parsePod(left[:i])
	if err != nil {
		return entryKey{}, target{}, fmt.Errorf("--map %q: %v", s, err)
	}
	port, err := parsePort(left[i+1:])
	if err != nil {
		return entryKey{}, target{}, fmt.Errorf("--map %q: %v", s, err)
	}
	t, err := parseTarget(right)
	if err != nil {
		return entryKey{}, target{}, fmt.Errorf("--map %q: %v", s, err)
	}
	return entryKey{pod, port}, t, nil
}

// mapper builds the mapping table: static --map entries overlaid by the
// lines of the mapping file, read afresh on every call.
type mapper struct {
	static map[entryKey]target
	file   string

	mu       sync.Mutex
	last     map[entryKey]target // the last table read successfully
	badLines map[string]bool     // malformed lines already logged
}

func (m *mapper) table() map[entryKey]target {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[entryKey]target, len(m.static))
	for k, v := range m.static {
		out[k] = v
	}
	if m.file == "" {
		return out
	}
	data, err := os.ReadFile(m.file)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		logger.Printf("read %s: %v (keeping the last table)", m.file, err)
		if m.last != nil {
			return m.last
		}
		return out
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, t, err := parseLine(line)
		if err != nil {
			msg := fmt.Sprintf("%s:%d: %v", m.file, lineNo, err)
			if !m.badLines[msg] {
				m.badLines[msg] = true
				logger.Printf("%s (line skipped)", msg)
			}
			continue
		}
		out[k] = t
	}
	m.last = out
	return out
}

func parseLine(line string) (entryKey, target, error) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return entryKey{}, target{}, fmt.Errorf("want NAMESPACE/POD PORT TARGET, got %q", line)
	}
	pod, err := parsePod(f[0])
	if err != nil {
		return entryKey{}, target{}, err
	}
	port, err := parsePort(f[1])
	if err != nil {
		return entryKey{}, target{}, err
	}
	t, err := parseTarget(f[2])
	if err != nil {
		return entryKey{}, target{}, err
	}
	return entryKey{pod, port}, t, nil
}

// liveStream is one forwarded stream in flight.
type liveStream struct {
	id     uint64
	key    entryKey
	target target
	conn   net.Conn // nil for hang

	once   sync.Once
	cut    chan struct{} // closed when cut
	reason string
	quiet  bool // cut without an error message
}

// doCut closes the stream's target side; the forwarder then returns.
func (s *liveStream) doCut(reason string, quiet bool) {
	s.once.Do(func() {
		s.reason, s.quiet = reason, quiet
		close(s.cut)
		if s.conn != nil {
			s.conn.Close()
		}
	})
}

func (s *liveStream) wasCut() bool {
	select {
	case <-s.cut:
		return true
	default:
		return false
	}
}

type registry struct {
	mu   sync.Mutex
	next atomic.Uint64
	live map[uint64]*liveStream
}

func (r *registry) add(s *liveStream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live[s.id] = s
}

func (r *registry) remove(s *liveStream) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.live, s.id)
}

func (r *registry) snapshot() []*liveStream {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*liveStream, 0, len(r.live))
	for _, s := range r.live {
		out = append(out, s)
	}
	return out
}

type forwarder struct {
	maps        *mapper
	reg         *registry
	dialTimeout time.Duration
	idleTimeout time.Duration
}

// forward connects one forwarded stream to the target of its Pod port.
// halfClose: the client may half-close the stream (SPDY) and still read the
// reply; otherwise (websocket v4) the end of the stream means the end of the
// connection.
func (f *forwarder) forward(namespace, pod string, port int32, stream io.ReadWriteCloser, halfClose bool) error {
	key := entryKey{namespace + "/" + pod, port}
	t, ok := f.maps.table()[key]
	if !ok {
		logger.Printf("%s: no mapping, stream refused", key)
		return fmt.Errorf("fake-kubelet: no mapping for %s", key)
	}
	s := &liveStream{id: f.reg.next.Add(1), key: key, target: t, cut: make(chan struct{})}
	switch t.kind {
	case kindRefuse:
		logger.Printf("%s: refuse, stream refused", key)
		return fmt.Errorf("failed to connect to localhost:%d inside namespace of pod %s: dial tcp4 127.0.0.1:%d: connect: connection refused", port, key.pod, port)
	case kindDial:
		conn, err := net.DialTimeout("tcp", t.addr, f.dialTimeout)
		if err != nil {
			logger.Printf("%s: dial %s: %v", key, t.addr, err)
			return fmt.Errorf("failed to connect to localhost:%d inside namespace of pod %s: %v", port, key.pod, err)
		}
		s.conn = conn
	}
	f.reg.add(s)
	defer f.reg.remove(s)
	logger.Printf("stream %d: %s -> %s opened", s.id, key, t)

	switch t.kind {
	case kindHang:
		clientDone := make(chan struct{})
		go func() {
			io.Copy(io.Discard, stream)
			close(clientDone)
		}()
		select {
		case <-clientDone:
		case <-s.cut:
		}
	case kindDial:
		go func() {
			io.Copy(s.conn, stream)
			if tc, ok := s.conn.(*net.TCPConn); ok && halfClose {
				tc.CloseWrite()
			} else {
				s.conn.Close()
			}
		}()
		io.Copy(stream, s.conn)
		s.conn.Close()
	}

	if s.wasCut() {
		logger.Printf("stream %d: %s -> %s cut: %s", s.id, key, t, s.reason)
		if s.quiet {
			return nil
		}
		return fmt.Errorf("fake-kubelet: forward of %s to %s cut: %s", key, t, s.reason)
	}
	logger.Printf("stream %d: %s -> %s closed", s.id, key, t)
	return nil
}

// watch re-reads the table every interval and cuts the live streams whose
// entry went away or changed.
func (f *forwarder) watch(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		live := f.reg.snapshot()
		if len(live) == 0 {
			continue
		}
		table := f.maps.table()
		for _, s := range live {
			cur, ok := table[s.key]
			switch {
			case !ok:
				s.doCut("mapping removed", false)
			case cur != s.target:
				s.doCut("mapping changed to "+cur.String(), false)
			}
		}
	}
}

func (f *forwarder) cutAll(reason string, quiet bool) {
	for _, s := range f.reg.snapshot() {
		s.doCut(reason, quiet)
	}
}

// serveWebsocket serves a websocket port-forward (channel protocol v4): the
// Pod ports come from the `port` query parameters, each gets a data and an
// error channel, and each is forwarded once.
func (f *forwarder) serveWebsocket(w http.ResponseWriter, req *http.Request, namespace, pod string) {
	var ports []int32
	for _, v := range req.URL.Query()[corev1.PortHeader] {
		for p := range strings.SplitSeq(v, ",") {
			port, err := parsePort(strings.TrimSpace(p))
			if err != nil {
				http.Error(w, fmt.Sprintf("query parameter %q: %v", corev1.PortHeader, err), http.StatusBadRequest)
				return
			}
			ports = append(ports, port)
		}
	}
	if len(ports) == 0 {
		http.Error(w, fmt.Sprintf("query parameter %q is required", corev1.PortHeader), http.StatusBadRequest)
		return
	}
	channels := make([]wsstream.ChannelType, 0, 2*len(ports))
	for range ports {
		channels = append(channels, wsstream.ReadWriteChannel, wsstream.WriteChannel)
	}
	conn := wsstream.NewConn(map[string]wsstream.ChannelProtocolConfig{
		"": {Binary: true, Channels: channels},
		"v4." + wsstream.ChannelWebSocketProtocol:       {Binary: true, Channels: channels},
		"v4." + wsstream.Base64ChannelWebSocketProtocol: {Binary: false, Channels: channels},
	})
	conn.SetIdleTimeout(f.idleTimeout)
	_, streams, err := conn.Open(w, req)
	if err != nil {
		logger.Printf("%s/%s: websocket upgrade: %v", namespace, pod, err)
		return
	}
	defer conn.Close()
	var wg sync.WaitGroup
	for i, port := range ports {
		data, errc := streams[2*i], streams[2*i+1]
		prefix := binary.LittleEndian.AppendUint16(nil, uint16(port))
		data.Write(prefix)
		errc.Write(prefix)
		wg.Go(func() {
			defer data.Close()
			defer errc.Close()
			if err := f.forward(namespace, pod, port, data, false); err != nil {
				fmt.Fprintf(errc, "error forwarding port %d to pod %s, uid : %v", port, pod, err)
			}
		})
	}
	wg.Wait()
}

type mapFlags []string

func (m *mapFlags) String() string     { return strings.Join(*m, ",") }
func (m *mapFlags) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var (
		listen       = flag.String("listen", "127.0.0.1:10250", "address to serve HTTPS on (port 0: any free port)")
		certFile     = flag.String("tls-cert-file", "", "serving certificate, PEM (required)")
		keyFile      = flag.String("tls-private-key-file", "", "serving key, PEM (required)")
		clientCA     = flag.String("client-ca-file", "", "CA bundle client certificates must chain to, PEM (required)")
		mapFile      = flag.String("map-file", "", "mapping `file`, re-read on every new stream; lines: NAMESPACE/POD PORT HOST:PORT|refuse|hang")
		pollInterval = flag.Duration("poll-interval", 50*time.Millisecond, "how often the mapping is re-read to cut streams whose entry went away or changed")
		dialTimeout  = flag.Duration("dial-timeout", 5*time.Second, "timeout of the TCP dial to a target")
		idleTimeout  = flag.Duration("stream-idle-timeout", 4*time.Hour, "close a forward connection idle this long")
		createTimout = flag.Duration("stream-creation-timeout", 30*time.Second, "SPDY: how long a forward's data/error stream pair may take to arrive")
		maps         mapFlags
	)
	// Signals are caught from the start, so a SIGTERM sent right after the
	// ready line (or before it) still exits cleanly.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1, syscall.SIGUSR2)
	flag.Var(&maps, "map", "static mapping NS/POD:PORT=HOST:PORT|refuse|hang (repeatable; the mapping file wins)")
	flag.Parse()
	if flag.NArg() > 0 {
		logger.Fatalf("unexpected arguments: %q", flag.Args())
	}
	if *certFile == "" || *keyFile == "" || *clientCA == "" {
		logger.Fatalf("--tls-cert-file, --tls-private-key-file and --client-ca-file are required")
	}
	if *pollInterval <= 0 {
		logger.Fatalf("--poll-interval must be positive")
	}

	static := map[entryKey]target{}
	for _, m := range maps {
		k, t, err := parseMapFlag(m)
		if err != nil {
			logger.Fatal(err)
		}
		static[k] = t
	}

	cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
	if err != nil {
		logger.Fatalf("load serving certificate: %v", err)
	}
	caPEM, err := os.ReadFile(*clientCA)
	if err != nil {
		logger.Fatalf("read --client-ca-file: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		logger.Fatalf("--client-ca-file %s: no PEM certificates", *clientCA)
	}

	f := &forwarder{
		maps:        &mapper{static: static, file: *mapFile, badLines: map[string]bool{}},
		reg:         &registry{live: map[uint64]*liveStream{}},
		dialTimeout: *dialTimeout,
		idleTimeout: *idleTimeout,
	}
	f.maps.table() // log malformed lines early

	spdy := vkapi.HandlePortForward(
		func(_ context.Context, namespace, pod string, port int32, stream io.ReadWriteCloser) error {
			return f.forward(namespace, pod, port, stream, true)
		},
		vkapi.WithPortForwardStreamIdleTimeout(*idleTimeout),
		vkapi.WithPortForwardCreationTimeout(*createTimout),
	)
	router := mux.NewRouter()
	router.HandleFunc("/portForward/{namespace}/{pod}", func(w http.ResponseWriter, req *http.Request) {
		if wsstream.IsWebSocketRequest(req) {
			vars := mux.Vars(req)
			f.serveWebsocket(w, req, vars["namespace"], vars["pod"])
			return
		}
		spdy(w, req)
	}).Methods(http.MethodGet, http.MethodPost)
	router.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	}).Methods(http.MethodGet)
	router.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		logger.Printf("%s %s: not served by this fake kubelet (404)", req.Method, req.URL.Path)
		http.NotFound(w, req)
	})

	server := &http.Server{
		Handler: router,
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert},
			ClientAuth:   tls.RequireAndVerifyClientCert,
			ClientCAs:    pool,
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"http/1.1"},
		},
		// HTTP/1.1 only: SPDY and websocket upgrades need it, and the API
		// server's upgrade proxy speaks it.
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(os.Stderr, "fake-kubelet: http: ", log.Ltime|log.Lmicroseconds),
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		logger.Fatalf("listen %s: %v", *listen, err)
	}
	fmt.Fprintf(os.Stderr, "kubelet ready on %s\n", ln.Addr())

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go f.watch(ctx, *pollInterval)

	served := make(chan error, 1)
	go func() { served <- server.ServeTLS(ln, "", "") }()

	for {
		select {
		case err := <-served:
			logger.Fatalf("serve: %v", err)
		case sig := <-signals:
			switch sig {
			case syscall.SIGUSR1:
				logger.Printf("SIGUSR1: cutting every live stream")
				f.cutAll("SIGUSR1", false)
			case syscall.SIGUSR2:
				logger.Printf("SIGUSR2: closing every live stream")
				f.cutAll("SIGUSR2", true)
			default:
				logger.Printf("%v: shutting down", sig)
				stop()
				f.cutAll("kubelet shutting down", false)
				shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				server.Shutdown(shutdown)
				cancel()
				server.Close()
				os.Exit(0)
			}
		}
	}
}
