/**
 * Device facts for the parameter and fit tests: R1 of the test lab's OSPF triangle as real
 * FRR 8.4 prints it (with two static routes added), and an IOS router with BGP, EIGRP and an
 * access port, as IOS 15 prints it.
 */
import { factsOf, type DeviceFacts } from '../../src/scenarios/facts.js';

export const FRR_R1: Record<string, string> = {
  'show interface brief': `Interface       Status  VRF             Addresses
---------       ------  ---             ---------
eth0            up      default         10.0.1.1/24
eth1            up      default         10.0.3.1/24
lo              up      default         10.255.255.1/32
`,
  'show ip ospf neighbor': `
Neighbor ID     Pri State           Up Time         Dead Time Address         Interface                        RXmtL RqstL DBsmL
10.255.255.2      1 Full/-          8.487s             3.242s 10.0.1.2        eth0:10.0.1.1                        1     0     0
10.255.255.3      1 Full/-          2.647s             3.299s 10.0.3.2        eth1:10.0.3.1                        0     0     0
`,
  'show ip route': `Codes: K - kernel route, C - connected, S - static, R - RIP,
       O - OSPF, I - IS-IS, B - BGP, E - EIGRP, N - NHRP,
       T - Table, v - VNC, V - VNC-Direct, A - Babel, F - PBR,
       f - OpenFabric,
       > - selected route, * - FIB route, q - queued, r - rejected, b - backup
       t - trapped, o - offload failure

S>* 0.0.0.0/0 [1/0] via 10.0.3.2, eth1, weight 1, 00:00:08
O   10.0.1.0/24 [110/10] is directly connected, eth0, weight 1, 00:00:10
C>* 10.0.1.0/24 is directly connected, eth0, 00:00:15
O>* 10.0.2.0/24 [110/20] via 10.0.1.2, eth0, weight 1, 00:00:08
O   10.0.3.0/24 [110/10] is directly connected, eth1, weight 1, 00:00:10
C>* 10.0.3.0/24 is directly connected, eth1, 00:00:15
O   10.255.255.1/32 [110/0] is directly connected, lo, weight 1, 00:00:10
C>* 10.255.255.1/32 is directly connected, lo, 00:00:15
O>* 10.255.255.2/32 [110/10] via 10.0.1.2, eth0, weight 1, 00:00:08
O>* 10.255.255.3/32 [110/20] via 10.0.1.2, eth0, weight 1, 00:00:03
S>* 192.168.100.0/24 [1/0] via 10.0.1.2, eth0, weight 1, 00:00:08
`,
  'show running-config': `Building configuration...

Current configuration:
!
frr version 8.4.4
frr defaults traditional
hostname R1
no ipv6 forwarding
service integrated-vtysh-config
!
ip route 0.0.0.0/0 10.0.3.2
ip route 192.168.100.0/24 10.0.1.2
!
interface eth0
 ip ospf dead-interval 4
 ip ospf hello-interval 1
 ip ospf network point-to-point
exit
!
interface eth1
 ip ospf dead-interval 4
 ip ospf hello-interval 1
 ip ospf network point-to-point
exit
!
router ospf
 ospf router-id 10.255.255.1
 network 10.0.0.0/16 area 0
 network 10.255.255.0/24 area 0
exit
!
end
`,
};

export const IOS_R9: Record<string, string> = {
  'show ip interface brief': `Interface                  IP-Address      OK? Method Status                Protocol
GigabitEthernet0/0         10.0.12.1       YES NVRAM  up                    up
GigabitEthernet0/1         unassigned      YES NVRAM  up                    up
GigabitEthernet0/2         unassigned      YES NVRAM  administratively down down
Loopback0                  1.1.1.1         YES NVRAM  up                    up
`,
  'show ip ospf neighbor': '',
  'show ip bgp summary': `BGP router identifier 1.1.1.1, local AS number 65001
BGP table version is 3, main routing table version 3

Neighbor        V           AS MsgRcvd MsgSent   TblVer  InQ OutQ Up/Down  State/PfxRcd
10.0.12.2       4        65002      12      11        3    0    0 00:06:40        1
`,
  'show ip route': `Codes: L - local, C - connected, S - static, R - RIP, M - mobile, B - BGP
Gateway of last resort is not set

      2.0.0.0/32 is subnetted, 1 subnets
B        2.2.2.2 [20/0] via 10.0.12.2, 00:06:12
      10.0.0.0/8 is variably subnetted, 2 subnets, 2 masks
C        10.0.12.0/24 is directly connected, GigabitEthernet0/0
L        10.0.12.1/32 is directly connected, GigabitEthernet0/0
S     172.16.0.0/16 [1/0] via 10.0.12.2
`,
  'show running-config': `Building configuration...
!
hostname R9
!
interface Loopback0
 ip address 1.1.1.1 255.255.255.255
!
interface GigabitEthernet0/0
 ip address 10.0.12.1 255.255.255.0
 duplex auto
!
interface GigabitEthernet0/1
 switchport access vlan 10
 switchport mode access
!
interface GigabitEthernet0/2
 no ip address
 shutdown
!
router eigrp 100
 network 10.0.12.0 0.0.0.255
!
router ospf 7
 network 10.0.12.0 0.0.0.255 area 0
!
router bgp 65001
 bgp log-neighbor-changes
 network 1.1.1.1 mask 255.255.255.255
 neighbor 10.0.12.2 remote-as 65002
!
ip route 172.16.0.0 255.255.0.0 10.0.12.2
!
end
`,
};

export const facts = (name: string, platform: 'frr' | 'cisco_ios', outputs: Record<string, string>): DeviceFacts =>
  factsOf(name, platform, (c) => outputs[c]);
