// Command analyzer-floor measures what a policy pack's analyzer costs a Pulumi preview, apart from the engine
// (docs/benchmark.md, bench/analyzer-floor.ts runs it):
//
//   - analyzer-floor serve <engine address>: a null analyzer, the floor of any analyzer. It prints its port as a
//     plugin does and responds to GetAnalyzerInfo and GetPluginInfo with the bytes in the files
//     $ANALYZER_FLOOR_DIR/GetAnalyzerInfo.bin and GetPluginInfo.bin (the real pack's responses, so the engine sees the
//     same pack), every other method with an empty message (no remediation, no violation). With
//     $ANALYZER_FLOOR_RECORD set, it appends every request it receives to that file (JSON lines: path, bytes).
//   - analyzer-floor replay <recorded file> <analyzer> [rounds]: starts the analyzer as the engine does (its engine
//     address as argument), sends it the recorded calls one after the other as the engine's step generator does, over
//     the engine's gRPC library (grpc-go), and prints per round the wall time and the analyzer's CPU time per
//     resource (a Remediate and an Analyze), and for AnalyzeStack.
//
// Requests and responses stay encoded (a codec of raw bytes): nothing here depends on Pulumi's protocol but the
// method paths.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// rawCodec passes messages through as bytes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// call is one recorded request.
type call struct {
	Path  string `json:"path"`
	Bytes []byte `json:"bytes"`
}

func serve() error {
	canned := map[string][]byte{}
	for _, method := range []string{"GetAnalyzerInfo", "GetPluginInfo"} {
		data, err := os.ReadFile(os.Getenv("ANALYZER_FLOOR_DIR") + "/" + method + ".bin")
		if err != nil {
			return err
		}
		canned[method] = data
	}
	var record *json.Encoder
	var recordLock sync.Mutex
	if path := os.Getenv("ANALYZER_FLOOR_RECORD"); path != "" {
		file, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer file.Close()
		record = json.NewEncoder(file)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	server := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.MaxRecvMsgSize(1<<30),
		grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
			path, _ := grpc.MethodFromServerStream(stream)
			var request []byte
			if err := stream.RecvMsg(&request); err != nil {
				return err
			}
			if record != nil {
				recordLock.Lock()
				err := record.Encode(call{Path: path, Bytes: request})
				recordLock.Unlock()
				if err != nil {
					return err
				}
			}
			response := canned[path[strings.LastIndex(path, "/")+1:]]
			if response == nil {
				response = []byte{}
			}
			return stream.SendMsg(&response)
		}))
	fmt.Printf("%d\n", listener.Addr().(*net.TCPAddr).Port)
	return server.Serve(listener)
}

// cpuOf is the CPU time (user and system) a process has used, from /proc.
func cpuOf(pid int) time.Duration {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	text := string(stat)
	fields := strings.Fields(text[strings.LastIndex(text, ")")+2:])
	user, _ := strconv.Atoi(fields[11])
	system, _ := strconv.Atoi(fields[12])
	return time.Duration(user+system) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

func replay(recorded, analyzer string, rounds int) error {
	file, err := os.Open(recorded)
	if err != nil {
		return err
	}
	var setup, perResource, stack []call
	lines := bufio.NewScanner(file)
	lines.Buffer(nil, 1<<30)
	for lines.Scan() {
		var c call
		if err := json.Unmarshal(lines.Bytes(), &c); err != nil {
			return err
		}
		switch method := c.Path[strings.LastIndex(c.Path, "/")+1:]; method {
		case "Remediate", "Analyze":
			perResource = append(perResource, c)
		case "AnalyzeStack":
			stack = append(stack, c)
		case "Cancel":
		default:
			setup = append(setup, c)
		}
	}
	file.Close()
	command := exec.Command(analyzer, "127.0.0.1:1")
	command.Stderr = os.Stderr
	stdout, err := command.StdoutPipe()
	if err != nil {
		return err
	}
	began := time.Now()
	if err := command.Start(); err != nil {
		return err
	}
	defer func() { _ = command.Process.Kill(); _ = command.Wait() }()
	port, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return err
	}
	started := time.Since(began)
	conn, err := grpc.NewClient("127.0.0.1:"+strings.TrimSpace(port),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{}), grpc.MaxCallRecvMsgSize(1<<30), grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		return err
	}
	defer conn.Close()
	invoke := func(calls []call) error {
		for _, c := range calls {
			request, response := c.Bytes, []byte(nil)
			if err := conn.Invoke(context.Background(), c.Path, &request, &response); err != nil {
				return fmt.Errorf("%s: %w", c.Path, err)
			}
		}
		return nil
	}
	if err := invoke(setup); err != nil {
		return err
	}
	pid := command.Process.Pid
	resources := len(perResource) / 2
	fmt.Printf("%s: port after %.0f ms; %d resources\n", analyzer, float64(started.Microseconds())/1000, resources)
	for round := 1; round <= rounds; round++ {
		cpu0, wall0 := cpuOf(pid), time.Now()
		if err := invoke(perResource); err != nil {
			return err
		}
		cpu1, wall1 := cpuOf(pid), time.Now()
		if err := invoke(stack); err != nil {
			return err
		}
		cpu2, wall2 := cpuOf(pid), time.Now()
		fmt.Printf("  round %d: per resource %4.0f us wall, %4.0f us analyzer CPU; AnalyzeStack %5.1f ms wall, %3.0f ms CPU\n", round,
			float64(wall1.Sub(wall0).Microseconds())/float64(resources), float64((cpu1-cpu0).Microseconds())/float64(resources),
			float64(wall2.Sub(wall1).Microseconds())/1000, float64((cpu2-cpu1).Microseconds())/1000)
	}
	return nil
}

func main() {
	var err error
	switch {
	case len(os.Args) >= 2 && os.Args[1] == "serve":
		err = serve()
	case len(os.Args) >= 4 && os.Args[1] == "replay":
		rounds := 1
		if len(os.Args) >= 5 {
			rounds, _ = strconv.Atoi(os.Args[4])
		}
		err = replay(os.Args[2], os.Args[3], rounds)
	default:
		err = fmt.Errorf("usage: analyzer-floor serve <engine> | replay <recorded> <analyzer> [rounds]")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "analyzer-floor:", err)
		os.Exit(1)
	}
}
