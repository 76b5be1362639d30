module github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go

go 1.21
